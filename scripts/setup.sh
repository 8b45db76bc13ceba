#!/usr/bin/env bash
# Installs everything ucudnn needs to build, test and benchmark, then reports what it found.
# Idempotent: a second run installs nothing new. Hints: CUDA_HOME (default /usr/local/cuda),
# CUDNN_ROOT (a folder with include/cudnn.h and lib*/libcudnn.so*, e.g. inside a Python
# environment's nvidia/cudnn package).
# --with-browser (scripts/test.sh): also Debian's chromium, which renders `ucudnn report`'s
# page in the tests.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang-format
  libglpk-dev libsqlite3-dev libopenblas-dev libdnnl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libopenmpi-dev openmpi-bin libpugixml-dev
)
for argument in "$@"; do
  case "$argument" in
    --with-browser) packages+=(chromium) ;;
    *) echo "setup: unknown option $argument (valid: --with-browser)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: all Debian packages present"
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
if [ -x "$cuda_home/bin/nvcc" ] || [ -f "$cuda_home/include/cuda_runtime_api.h" ]; then
  echo "setup: CUDA toolkit found in $cuda_home"
else
  echo "setup: CUDA toolkit not found in $cuda_home (set CUDA_HOME); CUDA parts will not be built"
fi

cudnn_header=""
for root in ${CUDNN_ROOT:-} "$cuda_home" /usr /usr/local; do
  [ -n "$root" ] || continue
  for inc in "$root/include" "$root/include/x86_64-linux-gnu"; do
    if [ -f "$inc/cudnn_version.h" ]; then cudnn_header="$inc/cudnn_version.h"; break 2; fi
  done
done
if [ -n "$cudnn_header" ]; then
  major=$(awk '/#define CUDNN_MAJOR/{print $3}' "$cudnn_header")
  minor=$(awk '/#define CUDNN_MINOR/{print $3}' "$cudnn_header")
  echo "setup: cuDNN $major.$minor headers found at $(dirname "$cudnn_header")"
else
  echo "setup: cuDNN 9 headers not found (set CUDNN_ROOT); the shim will not be built"
fi
