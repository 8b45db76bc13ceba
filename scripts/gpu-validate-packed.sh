#!/usr/bin/env bash
# scripts/gpu-validate.sh on a GPU machine that cannot install the build's dependencies (no
# network), from what scripts/gpu-pack.sh put in .gpu/ on a machine that built it: unpacks the
# build where it was made (a link at the build's path when the repository is elsewhere), puts
# the packed libraries the machine lacks on the library path, and runs gpu-validate (which finds
# the CUDA runtime and cuDNN, the Python environment's where the system has none) quickly with a
# deadline, writing everything also to $OUT/device.log (or /tmp/gpu-validate/), and the parts'
# logs and part 5's database to $OUT/logs.tgz.
#   GPU_BUDGET_S   seconds from now that gpu-validate may take (default 545)
#   GPU_PARTS      gpu-validate's parts, in order (default "5 6 1 3 2 4": the framework runs first)
set -u
cd "$(dirname "$0")/.."
start=$(date +%s)
deadline=$((start + ${GPU_BUDGET_S:-545}))
out=${OUT:-/tmp/gpu-validate}
mkdir -p "$out"
exec > >(tee "$out/device.log") 2>&1
root=$PWD
echo "root $root, $(nproc) cores"
head -2 /etc/os-release
ldd --version | head -1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
[ -f .gpu/build-release.tar.gz ] || { echo "no .gpu/build-release.tar.gz: run scripts/gpu-pack.sh where the build is"; exit 2; }
made_in=$(tar -xzOf .gpu/build-release.tar.gz release/CMakeCache.txt | sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p')
if [ -n "$made_in" ] && [ "$root" != "$made_in" ]; then
  if [ -e "$made_in" ]; then
    echo "the build was made in $made_in, which exists here: its paths will not reach this copy"
  else
    mkdir -p "$(dirname "$made_in")" && ln -s "$root" "$made_in" && echo "$made_in -> $root"
  fi
fi
mkdir -p build && tar -C build -xzf .gpu/build-release.tar.gz && tar -C .gpu -xzf .gpu/libs.tar.gz || exit 3
# Only what the machine lacks: its own copies serve PyTorch too, and must not be shadowed.
for lib in .gpu/lib/*; do
  if ldconfig -p | grep -qE "^[[:space:]]+$(basename "$lib") "; then rm "$lib"; fi
done
echo "packed libraries used: $(ls .gpu/lib | tr '\n' ' ')"
export LD_LIBRARY_PATH=$root/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# (gpu-validate finds the CUDA runtime and cuDNN itself: not looked for here.)
check="build/release/src/cli/ucudnn build/release/bench/ucudnn-bench-cudnn build/release/src/shim/libucudnn_preload.so build/release/src/shim/libucudnn_host.so"
if ldd $check 2>&1 | grep 'not found' | grep -qv 'libcud'; then
  ldd $check 2>&1 | grep 'not found' | grep -v 'libcud' | sort -u
  export LD_LIBRARY_PATH=$root/.gpu/lib-fallback:$LD_LIBRARY_PATH
  echo "with the packed libstdc++:"
  ldd $check 2>&1 | grep 'not found' | grep -v 'libcud' | sort -u
fi
python3 -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "cuDNN", torch.backends.cudnn.version(), torch.cuda.get_device_name())' 2>/dev/null ||
  echo "no PyTorch with CUDA here"
mkdir -p "$out/logs"
GPU_VALIDATE_QUICK=1 GPU_VALIDATE_DEADLINE=$deadline GPU_VALIDATE_PARTS="${GPU_PARTS:-5 6 1 3 2 4}" \
  GPU_VALIDATE_HYBRID_STEP=${GPU_VALIDATE_HYBRID_STEP:-16} GPU_VALIDATE_LOGS=$out/logs \
  UCUDNN_BUILD_DIR=build/release bash scripts/gpu-validate.sh
code=$?
# One file for every log: the device tool brings back at most 8.
tar -C "$out" -czf "$out/logs.tgz" logs && rm -rf "$out/logs"
echo "gpu-validate exit $code, $(($(date +%s) - start)) s"
exit $code
