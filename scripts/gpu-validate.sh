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
#      ucudnn-bench-hybrid-gpu (AlexNet, the GPU alone vs the sweep over b_c, measured);
#   5. a real model: torchvision's ResNet-50 training step (batch 64), fp32 and mixed precision
#      (bf16 autocast, channels_last), graph API and legacy API, alone, under ucudnn-run at 1 GiB
#      and 64 MiB, and with UCUDNN_DISABLE=1: median and minimum step, GPU kernel time per step
#      and the shim's host-time account; under memory pressure (all but 8 or 64 MiB held),
#      PyTorch alone against ucudnn at that limit (and, but in the quick mode, without a limit:
#      no slower than alone, every engine found); and a jitted JAX convolution step alone and
#      under ucudnn. Fails when ucudnn at 1 GiB is more than 2% slower than the framework alone.
#   6. beside a profiler: PyTorch convolutions (graph and legacy API) under ucudnn-run inside
#      `nsys profile --trace=cuda,cudnn` (nsys from PATH, else found under /usr/local/cuda* or
#      /opt/nvidia, Nsight Compute's folder included): same results as without either, and
#      what nsys left (a report, or only its raw capture); the preload alone
#      (UCUDNN_RUN_AUDIT=0), ucudnn-run as users run it (the auditor left out inside nsys), and
#      the auditor asked for.
# Each part says what it could not run; the exit status is nonzero when a part fails. The parts
# live in scripts/gpu-validate/, a file each (part 5 in three), with the helpers in common.sh.
# Settings, for a lent machine whose time is short:
#   GPU_VALIDATE_QUICK=1       what needs the GPU, once: batch 64 and the policy powerOfTwo only,
#                              PyTorch's legacy API at 64 MiB only, UCUDNN_HYBRID=on only,
#                              no planner-only hybrid bench (it needs no GPU); part 5: bf16 and
#                              fp32 on the graph API (PyTorch's default; the legacy API only in the
#                              full run), each alone and at 1 GiB (fp32 also at 64 MiB), no
#                              cudnn.benchmark run (GPU_VALIDATE_WARMUP) nor UCUDNN_DISABLE run,
#                              pressure at 8 MiB only: part 5 alone (GPU_PARTS=5 with
#                              gpu-validate-packed.sh) took 166 s on an H200 (11-30), 173 s with
#                              unpacking, ucudnn's first run of each precision measuring its
#                              kernels in an empty database; each part prints what it took
#   GPU_VALIDATE_PARTS="1 3 2 4"  which parts, in which order (default 1 2 3 4 5 6)
#   GPU_VALIDATE_DEADLINE=<epoch seconds>  no step runs past it: each is stopped there, and a
#                              step that would start with under 10 s left is skipped, saying so
#   GPU_VALIDATE_HYBRID_STEP, GPU_VALIDATE_HYBRID_OPERATIONS (forward|all): the measured sweep
#   GPU_VALIDATE_LOGS=<folder>  keeps part 1's whole test output there (realcudnn.log), part 5's
#                              logs under ucudnn (train-*.log, pressure-*.log, jax-1GiB.log) and its
#                              database (part5.db), part 6's (nsys-*.txt)
#   GPU_VALIDATE_TRAIN="fp32:graph fp32:legacy ..."  part 5's (precision, API) runs, in order
#   GPU_VALIDATE_TABLE_BATCHES="256 64", GPU_VALIDATE_TABLE_POLICIES="powerOfTwo all",
#   GPU_VALIDATE_TABLE_LIMITS="8MiB 64MiB 512MiB"  part 3's (quick: batch 64, powerOfTwo)
#   GPU_VALIDATE_TABLE_KNOBS=1  part 3 again with --knob-variants (UCUDNN_KNOB_VARIANTS), to set
#                              beside it (default 1)
#   GPU_VALIDATE_TRAIN_LIMITS="1GiB 64MiB"  the limits of ucudnn's runs of each of them ("64MiB+knobs":
#                              that limit with UCUDNN_KNOB_VARIANTS=on; default:
#                              both; quick: 1GiB only, but fp32 on the graph API); 1GiB first
#   GPU_VALIDATE_JAX=0          part 5 without its JAX step
#   GPU_VALIDATE_PRESSURE="8 64"  part 5's memory-pressure runs: MiB left free beside the step
#                              (empty: none); PyTorch alone against ucudnn-run at that limit
#   GPU_VALIDATE_PRESSURE_NO_LIMIT=1  and against ucudnn-run without a limit set (default: 1,
#                              quick 0)
#   GPU_VALIDATE_NSYS_APIS="graph legacy" (quick: graph), GPU_VALIDATE_NSYS_S=90: part 6's
#                              APIs, and the most one run inside nsys may take (a run still
#                              without a result then is described before it is stopped:
#                              nsys-*.stuck.txt)
#   GPU_VALIDATE_NSYS_AUDIT="0 default 1"  part 6's UCUDNN_RUN_AUDIT values ("default": unset)
#   GPU_VALIDATE_NSYS_AFTER_S=20  how long nsys is left to write after the application's result
#   GPU_VALIDATE_WARMUP=1       part 5 with a run of PyTorch alone under cudnn.benchmark, whose
#                              warm-up ucudnn's first run (empty database) is held against
#                              (default: 1, quick 0)
#   GPU_VALIDATE_ROUNDS=N       part 5's gate: N alternating runs of the framework alone and under
#                              ucudnn at 1 GiB (default 1), compared by their best medians
#   UCUDNN_BUILD_DIR=<a finished build>  made elsewhere, for a machine that cannot install the
#                              build's dependencies: skips set-up and build (scripts/gpu-pack.sh
#                              and gpu-validate-packed.sh carry one there and run this quickly)
set -uo pipefail
cd "$(dirname "$0")/.."

# The Python environment's NVIDIA packages (pip's nvidia-*), where the system has no cuDNN or
# CUDA runtime of its own.
nvidia_dir=$(python3 -c 'import nvidia; print(list(nvidia.__path__)[0])' 2>/dev/null || true)
if [ -z "${CUDNN_ROOT:-}" ] && [ -n "$nvidia_dir" ]; then
  cudnn=$(find "$nvidia_dir" -name 'libcudnn.so.9' 2>/dev/null | head -1)
  [ -n "$cudnn" ] && CUDNN_ROOT=$(dirname "$(dirname "$cudnn")") &&
    echo "gpu-validate: cuDNN from the Python environment: $CUDNN_ROOT"
fi
if [ ! -e /usr/local/cuda/lib64/libcudart.so.13 ] &&
  ! ldconfig -p | grep -qE '^[[:space:]]+libcudart.so.13 ' && [ -n "$nvidia_dir" ]; then
  cudart=$(find "$nvidia_dir" -name 'libcudart.so.13*' 2>/dev/null | head -1)
  [ -n "$cudart" ] && export LD_LIBRARY_PATH=$(dirname "$cudart")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} &&
    echo "gpu-validate: CUDA runtime from the Python environment: $cudart"
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

quick=${GPU_VALIDATE_QUICK:-0}
deadline=${GPU_VALIDATE_DEADLINE:-0}

[ -n "${GPU_VALIDATE_LOGS:-}" ] && mkdir -p "$GPU_VALIDATE_LOGS"
for part_file in scripts/gpu-validate/*.sh; do
  # shellcheck source=/dev/null
  source "$part_file" || { echo "gpu-validate: cannot read $part_file"; exit 2; }
done


for part in ${GPU_VALIDATE_PARTS:-1 2 3 4 5 6}; do
  case "$part" in
    1 | 2 | 3 | 4 | 5 | 6)
      declare -F "part_$part" > /dev/null || { echo "gpu-validate: part $part is not defined"; status=1; continue; }
      part_start=$(date +%s)
      "part_$part"
      echo "== part $part took $(($(date +%s) - part_start)) s"
      ;;
    *) echo "gpu-validate: no part $part (parts are 1 to 6)"; status=1 ;;
  esac
done
exit $status
