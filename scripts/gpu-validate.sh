#!/usr/bin/env bash
# GPU validation, for a machine with a GPU: finds cuDNN 9 (under CUDA_HOME, CUDNN_ROOT, or
# inside the Python environment's nvidia-cudnn package), builds with that hint, and runs
#   1. the tests against the real cuDNN: descriptors, and the example program without ucudnn,
#      under LD_PRELOAD (WR and WD) and as UcudnnHandle_t, results compared;
#   2. PyTorch convolutions (forward and backward, several shapes), through cuDNN's legacy API
#      (TORCH_CUDNN_V8_API_DISABLED=1) and through its graph API (PyTorch's default), without
#      and under scripts/ucudnn-run: results and times, and which graph plans ucudnn ran;
#   3. the µ-cuDNN table (Figs. 10 and 13): AlexNet and ResNet-50, forward + backward, batch
#      256 and 64, under 8/64/512 MiB: undivided vs WR powerOfTwo vs WR all vs WD;
#   4. CPU/GPU hybrid: PyTorch's results under UCUDNN_HYBRID=on and auto against its own, the
#      splits logged; ucudnn-bench-hybrid (the planner's split vs the throughput rule) and
#      ucudnn-bench-hybrid-gpu (AlexNet, the GPU alone vs the sweep over b_c, measured).
# Each part says what it could not run; the exit status is nonzero when a part fails.
# Set GPU_VALIDATE_QUICK=1 for a short run (batch 64 only, ResNet-50 with powerOfTwo only), and
# UCUDNN_BUILD_DIR to a finished build (made elsewhere, for a machine that cannot install the
# build's dependencies) to skip set-up and build.
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

build=${UCUDNN_BUILD_DIR:-build/release}
if [ -n "${UCUDNN_BUILD_DIR:-}" ]; then
  echo "gpu-validate: using the finished build in $build"
else
  if command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
    bash scripts/setup.sh || echo "gpu-validate: setup incomplete; building with what is there"
  fi
  cmake --preset release -DCUDNN_ROOT="$CUDNN_ROOT" >/dev/null && cmake --build --preset release || exit 1
fi
export UCUDNN_PRELOAD_LIBRARY=${UCUDNN_PRELOAD_LIBRARY:-$(cd "$build/src/shim" && pwd)/libucudnn_preload.so}
status=0

echo "== 1. tests against the real cuDNN (legacy and graph API, loading by path)"
ctest --test-dir "$build" -R 'RealCudnn' --output-on-failure -V 2>&1 |
  grep -E 'real cuDNN|Passed|Failed|Skipped|SKIPPED|tests passed'
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

echo "== 2. PyTorch with and without ucudnn, legacy API and graph API"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  out=$(mktemp -d)
  for api in legacy graph; do
    if [ "$api" = legacy ]; then export TORCH_CUDNN_V8_API_DISABLED=1; else unset TORCH_CUDNN_V8_API_DISABLED; fi
    for mode in "" "--benchmark"; do
      echo "-- $api API, torch.backends.cudnn.benchmark=$([ -n "$mode" ] && echo True || echo False)"
      python3 scripts/torch_conv_check.py run --api $api --out "$out/base.pt" $mode || status=1
      # 64 MiB: ucudnn's default limit, below what PyTorch's own choices use; 1 GiB: above them,
      # the shim should then cost nothing.
      for limit in 64MiB 1GiB; do
        echo "-- under ucudnn-run, UCUDNN_WORKSPACE_LIMIT=$limit"
        UCUDNN_DATABASE="$out/ucudnn-$limit.db" UCUDNN_WORKSPACE_LIMIT=$limit UCUDNN_LOG_LEVEL=info \
          scripts/ucudnn-run python3 scripts/torch_conv_check.py run --api $api --out "$out/shim.pt" $mode \
          2> "$out/log" || status=1
        echo "   graph API plans ucudnn ran: $(grep -c "plan runs ucudnn's micro-batches" "$out/log")"
        grep -E 'error|Error' "$out/log" | head -5
        python3 scripts/torch_conv_check.py compare "$out/base.pt" "$out/shim.pt" || status=1
      done
    done
  done
  export TORCH_CUDNN_V8_API_DISABLED=1
  rm -rf "$out"
else
  echo "gpu-validate: PyTorch with CUDA is not installed here: part 2 not run"
fi

echo "== 3. undivided vs WR vs WD (µ-cuDNN Figs. 10 and 13)"
bench="$build/bench/ucudnn-bench-cudnn"
if [ "${GPU_VALIDATE_QUICK:-0}" = 1 ]; then
  "$bench" --networks alexnet --batches 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo all --run || status=1
  "$bench" --networks resnet50 --batches 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo || status=1
else
  "$bench" --networks alexnet --batches 256 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo all --run || status=1
  "$bench" --networks resnet50 --batches 256 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo all || status=1
fi
echo "== 4. CPU/GPU hybrid (UCUDNN_HYBRID): PyTorch's results with the CPU taking a share"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  out=$(mktemp -d)
  export TORCH_CUDNN_V8_API_DISABLED=1
  python3 scripts/torch_conv_check.py run --out "$out/base.pt" || status=1
  for hybrid in on auto; do
    echo "-- under the preload, UCUDNN_HYBRID=$hybrid"
    UCUDNN_DATABASE="$out/ucudnn-$hybrid.db" UCUDNN_HYBRID=$hybrid UCUDNN_LOG_LEVEL=info \
      scripts/ucudnn-run python3 scripts/torch_conv_check.py run --out "$out/shim.pt" 2>&1 |
      grep -E 'hybrid|error|Error' | head -20
    python3 scripts/torch_conv_check.py compare "$out/base.pt" "$out/shim.pt" || status=1
  done
  rm -rf "$out"
else
  echo "gpu-validate: PyTorch with CUDA is not installed here: part 4 not run"
fi
"$build/bench/ucudnn-bench-hybrid" --batch 32 --operations all || status=1
# Measured: the GPU alone vs every split of AlexNet's kernels at batch 64.
"$build/bench/ucudnn-bench-hybrid-gpu" --batch 64 --step "${GPU_VALIDATE_HYBRID_STEP:-4}" || status=1
exit $status
