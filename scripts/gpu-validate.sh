#!/usr/bin/env bash
# GPU validation, for a machine with a GPU: finds cuDNN 9 (under CUDA_HOME, CUDNN_ROOT, or
# inside the Python environment's nvidia-cudnn package), builds with that hint, and runs the
# tests that use the real cuDNN. What does not exist yet is said, not skipped silently:
# the LD_PRELOAD shim, its end-to-end programs and the AlexNet/ResNet-50 tables (WR/WD vs
# undivided) come with the shim.
set -uo pipefail
cd "$(dirname "$0")/.."

if [ -z "${CUDNN_ROOT:-}" ] && command -v python3 >/dev/null; then
  CUDNN_ROOT=$(python3 -c 'import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__) if nvidia.cudnn.__file__ else list(nvidia.cudnn.__path__)[0])' 2>/dev/null || true)
  [ -n "$CUDNN_ROOT" ] && echo "gpu-validate: cuDNN from the Python environment: $CUDNN_ROOT"
fi
export CUDNN_ROOT=${CUDNN_ROOT:-}
if [ -n "$CUDNN_ROOT" ]; then
  for lib in "$CUDNN_ROOT/lib" "$CUDNN_ROOT/lib64"; do
    [ -d "$lib" ] && export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  done
fi

command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader

if command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
  bash scripts/setup.sh || echo "gpu-validate: setup incomplete; building with what is there"
fi
cmake --preset release -DCUDNN_ROOT="$CUDNN_ROOT" >/dev/null && cmake --build --preset release || exit 1

status=0
ctest --preset release -R 'RealCudnn' || status=1
echo "gpu-validate: not yet available: LD_PRELOAD shim end-to-end runs, PyTorch comparison,"
echo "gpu-validate: and the AlexNet/ResNet-50 WR/WD tables (they arrive with the shim)."
exit $status
