#!/usr/bin/env bash
# Packs the finished release build, and the shared libraries its programs need that a bare GPU
# machine may lack (GLPK, oneDNN, pugixml, ...), into .gpu/ (ignored by git), for a machine that
# cannot install the build's dependencies: copy the repository there with .gpu/ and run
# scripts/gpu-validate-packed.sh. Libraries the machine has are used before the packed ones;
# the packed libstdc++ only where the machine's is too old. About 30 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/release
if [ ! -f "$build/src/shim/libucudnn_preload.so" ]; then
  echo "gpu-pack: no release build in $build (scripts/build.sh makes it)" >&2
  exit 2
fi
rm -rf .gpu && mkdir -p .gpu/lib .gpu/lib-fallback
tar -C build -czf .gpu/build-release.tar.gz --exclude=CMakeFiles --exclude='*.a' \
  --exclude=Testing release
# Every library a program of the build needs, but the C library's own, the CUDA runtime and
# cuDNN (the machine's are the ones to test) and ucudnn's (in the build).
find "$build" -type f \( -perm -u+x -o -name '*.so*' \) -not -path '*/CMakeFiles/*' \
  -exec ldd {} + 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' | sort -u |
  while read -r name path; do
    case "$name" in
      libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux* | libcudart* | \
        libcudnn* | libucudnn*) ;;
      libstdc++* | libgcc_s*) cp -L "$path" .gpu/lib-fallback/ ;;
      *) cp -L "$path" .gpu/lib/ ;;
    esac
  done
tar -C .gpu -czf .gpu/libs.tar.gz lib lib-fallback
echo "gpu-pack: $(ls .gpu/lib | wc -l) libraries packed beside the build"
rm -rf .gpu/lib .gpu/lib-fallback
du -sh .gpu
