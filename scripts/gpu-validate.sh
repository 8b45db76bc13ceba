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
#      what nsys left (a report, or only its raw capture); ucudnn-run without its auditor
#      (UCUDNN_RUN_AUDIT=0, as README advises under nsys), then with it.
# Each part says what it could not run; the exit status is nonzero when a part fails.
# Settings, for a lent machine whose time is short:
#   GPU_VALIDATE_QUICK=1       what needs the GPU, once: batch 64 and the policy powerOfTwo only,
#                              PyTorch's legacy API at 64 MiB only, UCUDNN_HYBRID=on only,
#                              no planner-only hybrid bench (it needs no GPU); part 5: bf16 and
#                              fp32 on the graph API (PyTorch's default; the legacy API only in the
#                              full run), each alone and at 1 GiB (fp32 also at 64 MiB), no
#                              cudnn.benchmark run (GPU_VALIDATE_WARMUP) nor UCUDNN_DISABLE run,
#                              pressure at 8 MiB only: about 3 minutes on an H200 by the runs
#                              timed there (about 12 s a run alone, 30 s for ucudnn's first run of
#                              a precision, which measures its kernels in an empty database); each
#                              part prints what it took
#   GPU_VALIDATE_PARTS="1 3 2 4"  which parts, in which order (default 1 2 3 4 5 6)
#   GPU_VALIDATE_DEADLINE=<epoch seconds>  no step runs past it: each is stopped there, and a
#                              step that would start with under 10 s left is skipped, saying so
#   GPU_VALIDATE_HYBRID_STEP, GPU_VALIDATE_HYBRID_OPERATIONS (forward|all): the measured sweep
#   GPU_VALIDATE_LOGS=<folder>  keeps part 1's whole test output there (realcudnn.log), part 5's
#                              logs under ucudnn (train-*.log, pressure-*.log, jax-1GiB.log) and its
#                              database (part5.db), part 6's (nsys-*.txt)
#   GPU_VALIDATE_TRAIN="fp32:graph fp32:legacy ..."  part 5's (precision, API) runs, in order
#   GPU_VALIDATE_JAX=0          part 5 without its JAX step
#   GPU_VALIDATE_PRESSURE="8 64"  part 5's memory-pressure runs: MiB left free beside the step
#                              (empty: none); PyTorch alone against ucudnn-run at that limit
#   GPU_VALIDATE_NSYS_APIS="graph legacy" (quick: graph), GPU_VALIDATE_NSYS_S=90: part 6's
#                              APIs, and the most one run inside nsys may take (a run still
#                              without a result then is described before it is stopped:
#                              nsys-*.stuck.txt)
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

# Runs a step within what is left before the deadline; a stopped step counts as a failure.
bounded() {
  if [ "$deadline" -eq 0 ]; then "$@"; return; fi
  local left=$((deadline - $(date +%s)))
  if [ "$left" -lt 10 ]; then
    echo "gpu-validate: no time left before the deadline: skipped $*"
    return 1
  fi
  timeout --kill-after=5 "$left" "$@"
  local code=$?
  [ $code -eq 124 ] || [ $code -eq 137 ] && echo "gpu-validate: stopped at the deadline: $*"
  return $code
}

# The shim's exit account of its own CUDA calls (UCUDNN_LOG_LEVEL=info): outside measuring, a
# WR run must not have synchronized once.
runtime_calls() {
  local line
  line=$(grep "CUDA runtime calls in this process" "$1" | sed 's/^ucudnn: info: /   /')
  [ -n "$line" ] || line="   the log has no account of the shim's CUDA calls"
  echo "$line"
  if echo "$line" | grep -qE 'otherwise .* [1-9][0-9]* synchronizations'; then
    echo "gpu-validate: ucudnn synchronized outside measuring"
    return 1
  fi
}

torch_has_gpu() {
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null
}

part_1() {
  echo "== 1. tests against the real cuDNN (legacy and graph API, loading by path)"
  local full=/dev/null
  [ -n "${GPU_VALIDATE_LOGS:-}" ] && mkdir -p "$GPU_VALIDATE_LOGS" && full=$GPU_VALIDATE_LOGS/realcudnn.log
  bounded ctest --test-dir "$build" -R 'RealCudnn' --output-on-failure -V 2>&1 | tee "$full" |
    grep -E 'real cuDNN|Passed|Failed|Skipped|SKIPPED|tests passed|Failure|Expected|Which is|actual'
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

part_2() {
  echo "== 2. PyTorch with and without ucudnn, legacy API and graph API"
  if ! torch_has_gpu; then
    echo "gpu-validate: PyTorch with CUDA is not installed here: part 2 not run"
    return
  fi
  # 64 MiB: ucudnn's default limit, below what PyTorch's own choices use; 1 GiB: above them,
  # the shim should then cost nothing.
  local limits out api mode limit
  out=$(mktemp -d)
  for api in legacy graph; do
    limits="64MiB 1GiB"
    # Quick: 1 GiB for PyTorch's default API only.
    [ "$quick" = 1 ] && [ $api = legacy ] && limits=64MiB
    if [ "$api" = legacy ]; then export TORCH_CUDNN_V8_API_DISABLED=1; else unset TORCH_CUDNN_V8_API_DISABLED; fi
    for mode in "" "--benchmark"; do
      echo "-- $api API, torch.backends.cudnn.benchmark=$([ -n "$mode" ] && echo True || echo False)"
      bounded python3 scripts/torch_conv_check.py run --api $api --out "$out/base.pt" $mode || status=1
      for limit in $limits; do
        echo "-- under ucudnn-run, UCUDNN_WORKSPACE_LIMIT=$limit"
        UCUDNN_DATABASE="$out/ucudnn-$limit.db" UCUDNN_WORKSPACE_LIMIT=$limit UCUDNN_LOG_LEVEL=info \
          bounded scripts/ucudnn-run python3 scripts/torch_conv_check.py run --api $api \
          --out "$out/shim.pt" $mode 2> "$out/log" || status=1
        echo "   graph API plans ucudnn ran: $(grep -c "plan runs ucudnn's micro-batches" "$out/log")"
        echo "   kernels planned: $(grep -c 'plan within' "$out/log")"
        grep -E 'error|Error|warning' "$out/log" | sort | uniq -c | sort -rn | head -8
        runtime_calls "$out/log" || status=1
        python3 scripts/torch_conv_check.py compare "$out/base.pt" "$out/shim.pt" || status=1
      done
    done
  done
  export TORCH_CUDNN_V8_API_DISABLED=1
  rm -rf "$out"
}

part_3() {
  echo "== 3. undivided vs WR vs WD (µ-cuDNN Figs. 10 and 13)"
  local bench="$build/bench/ucudnn-bench-cudnn"
  if [ "$quick" = 1 ]; then
    # On an H200 these took 25 s and 6 s; the policy "all" at batch 64 takes minutes.
    bounded "$bench" --networks alexnet --batches 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo --run || status=1
    bounded "$bench" --networks resnet50 --batches 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo || status=1
  else
    bounded "$bench" --networks alexnet --batches 256 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo all --run || status=1
    bounded "$bench" --networks resnet50 --batches 256 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo all || status=1
  fi
}

part_4() {
  echo "== 4. CPU/GPU hybrid (UCUDNN_HYBRID): PyTorch's results with the CPU taking a share"
  if torch_has_gpu; then
    local out modes="on auto" hybrid
    [ "$quick" = 1 ] && modes=on
    out=$(mktemp -d)
    export TORCH_CUDNN_V8_API_DISABLED=1
    bounded python3 scripts/torch_conv_check.py run --out "$out/base.pt" || status=1
    for hybrid in $modes; do
      echo "-- under the preload, UCUDNN_HYBRID=$hybrid"
      UCUDNN_DATABASE="$out/ucudnn-$hybrid.db" UCUDNN_HYBRID=$hybrid UCUDNN_LOG_LEVEL=info \
        bounded scripts/ucudnn-run python3 scripts/torch_conv_check.py run --out "$out/shim.pt" \
        > "$out/log" 2>&1 || status=1
      grep -E 'hybrid|error|Error' "$out/log" | head -20
      runtime_calls "$out/log"
      grep -E 'forward\+backward|relative error' "$out/log"
      python3 scripts/torch_conv_check.py compare "$out/base.pt" "$out/shim.pt" || status=1
    done
    rm -rf "$out"
  else
    echo "gpu-validate: PyTorch with CUDA is not installed here: part 4's PyTorch run not done"
  fi
  # The planner's split against the throughput rule needs no GPU (it runs on the doubles too).
  [ "$quick" = 1 ] || bounded "$build/bench/ucudnn-bench-hybrid" --batch 32 --operations all || status=1
  # Measured: the GPU alone vs every split of AlexNet's kernels at batch 64.
  bounded "$build/bench/ucudnn-bench-hybrid-gpu" --batch 64 --step "${GPU_VALIDATE_HYBRID_STEP:-4}" \
    --operations "${GPU_VALIDATE_HYBRID_OPERATIONS:-all}" || status=1
}

# A RESULT line's field: result_field LINE NAME
result_field() {
  echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# Fails (returns 1) when the run `line` is more than 2% slower than `base`, by their medians.
# Fails (returns 1) when ucudnn is more than 2% slower than the framework alone: the best
# (lowest) median step of each side's runs, given as RESULT lines "alone..." then "|" then
# ucudnn's.
within_two_percent() {
  local alone=() ours=() side=alone line ratio
  for line in "$@"; do
    if [ "$line" = "|" ]; then side=ours; continue; fi
    if [ $side = alone ]; then alone+=("$(result_field "$line" median_ms)"); else ours+=("$(result_field "$line" median_ms)"); fi
  done
  ratio=$(python3 -c "print(f'{min([$(IFS=,; echo "${ours[*]}")]) / min([$(IFS=,; echo "${alone[*]}")]):.3f}')")
  echo "   ucudnn / alone, best median of ${#ours[@]} and ${#alone[@]} runs: ${ratio}x (at most 1.02x)"
  python3 -c "import sys; sys.exit(0 if $ratio <= 1.02 else 1)"
}

part_5() {
  echo "== 5. a real model: ResNet-50 training (batch 64) alone and under ucudnn; a JAX step"
  if ! torch_has_gpu; then
    echo "gpu-validate: PyTorch with CUDA is not installed here: part 5 not run"
    return
  fi
  local out precision api base line limit gate measured_precisions=""
  # Steps that run ahead of the GPU wander from step to step: more of them steady the median.
  local steps=50
  out=$(mktemp -d)
  echo "-- host time per call on the real cuDNN: ucudnn-bench-shim-overhead, a small convolution"
  UCUDNN_OVERHEAD_REAL_CUDNN=1 bounded "$build/bench/ucudnn-bench-shim-overhead" \
    --benchmark_min_time=0.2 2>&1 | grep -E '^(Direct|PassThrough|Planned|DescriptorReads|Graph)' | sed 's/^/   /'
  local pair
  local pairs="fp32:graph fp32:legacy amp:graph amp:legacy"
  [ "$quick" = 1 ] && pairs="amp:graph fp32:graph"
  for pair in ${GPU_VALIDATE_TRAIN:-$pairs}; do
    precision=${pair%%:*} api=${pair##*:}
    if [ "$api" = legacy ]; then export TORCH_CUDNN_V8_API_DISABLED=1; else unset TORCH_CUDNN_V8_API_DISABLED; fi
    echo "-- $precision, $api API"
    base=$(bounded python3 scripts/torch_train_step.py --precision $precision --steps $steps \
      --label alone | grep '^RESULT')
    echo "   $base"
    [ -n "$base" ] || { status=1; continue; }
    # The warm-up to stay within: PyTorch's own autotuning (cudnn.benchmark) of the same step.
    local autotuned=""
    # Only the first pair of a precision meets an empty database (the pairs share one).
    if [ "${GPU_VALIDATE_WARMUP:-$([ "$quick" = 1 ] && echo 0 || echo 1)}" = 1 ] &&
      [[ " $measured_precisions " != *" $precision "* ]]; then
      autotuned=$(bounded python3 scripts/torch_train_step.py --precision $precision --steps 10 \
        --profiled-steps 0 --benchmark --label alone-cudnn-benchmark | grep '^RESULT')
      echo "   $autotuned"
    fi
    gate=()
    local limits="1GiB 64MiB"
    [ "$quick" = 1 ] && [ $pair != fp32:graph ] && limits=1GiB
    for limit in $limits; do
      line=$(UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT=$limit UCUDNN_LOG_LEVEL=info \
        bounded scripts/ucudnn-run python3 scripts/torch_train_step.py --precision $precision \
        --steps $steps --label "ucudnn-$limit" 2> "$out/log" | grep '^RESULT')
      echo "   $line"
      [ -n "$line" ] || { status=1; tail -5 "$out/log"; continue; }
      echo "   graph API plans ucudnn runs: $(grep -c "plan runs ucudnn's micro-batches" "$out/log") ($(grep -c 'being over the limit' "$out/log") of them with an engine over the limit), left to cuDNN: $(grep -c "cuDNN runs the application's plan" "$out/log")"
      grep -E 'cudnnBackendExecute:|cudnnConvolution(Forward|BackwardData|BackwardFilter):' "$out/log" | sed 's/^ucudnn: info: */   /'
      runtime_calls "$out/log" || status=1
      [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/log" "$GPU_VALIDATE_LOGS/train-$precision-$api-$limit.log"
      if [ $limit = 1GiB ]; then
        gate=("$line")
        # This precision's kernels are not in the database yet: the first run measures them.
        measured_precisions="$measured_precisions $precision"
        [ -n "$autotuned" ] && echo "   warm-up with an empty database: ucudnn $(result_field "$line" warmup_s) s, PyTorch's cudnn.benchmark $(result_field "$autotuned" warmup_s) s, PyTorch without it $(result_field "$base" warmup_s) s; $(awk '/benchmarked [0-9]+ \(algorithm/ { for (i = 1; i < NF; i++) if ($i == "benchmarked") m += $(i + 1); else if ($i == "could" && $(i - 1) ~ /^[0-9]+$/) s += $(i - 1); k++ } END { printf "%d kernels measured: %d (candidate, micro-batch) pairs, %d skipped as unable to win", k, m, s }' "$out/log")"
      fi
    done
    # The gate: steps that run ahead of the GPU vary by several percent between identical runs
    # on a shared machine, so GPU_VALIDATE_ROUNDS > 1 alternates more runs of both (ucudnn's at
    # the default log level, as users run it) and compares the best of each.
    local alone_runs=("$base") round
    for ((round = 2; round <= ${GPU_VALIDATE_ROUNDS:-1}; round++)); do
      line=$(bounded python3 scripts/torch_train_step.py --precision $precision --steps $steps \
        --label "alone-$round" | grep '^RESULT')
      [ -n "$line" ] && alone_runs+=("$line") && echo "   $line"
      line=$(UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT=1GiB bounded scripts/ucudnn-run \
        python3 scripts/torch_train_step.py --precision $precision --steps $steps \
        --label "ucudnn-1GiB-$round" 2>/dev/null | grep '^RESULT')
      [ -n "$line" ] && gate+=("$line") && echo "   $line"
    done
    if [ ${#gate[@]} -gt 0 ]; then within_two_percent "${alone_runs[@]}" "|" "${gate[@]}" || status=1; fi
    # Quick: no UCUDNN_DISABLE run.
    [ "$quick" = 1 ] && continue
    # Disabled, the account shows what the application's own calls cost the host.
    line=$(UCUDNN_DISABLE=1 UCUDNN_LOG_LEVEL=info bounded scripts/ucudnn-run python3 \
      scripts/torch_train_step.py --precision $precision --steps $steps --label disabled \
      2> "$out/log" | grep '^RESULT')
    echo "   $line"
    grep -E 'cudnnBackendExecute:|cudnnConvolution(Forward|BackwardData|BackwardFilter):' "$out/log" | sed 's/^ucudnn: info: */   /'
  done
  # Memory pressure: the GPU holds all but X MiB beside what the step needs (a tensor allocated
  # first, torch_train_step.py --pressure-free-mib); PyTorch alone picks the engines whose
  # workspace fits, ucudnn plans within X. fp32, graph API.
  unset TORCH_CUDNN_V8_API_DISABLED
  local free_mib blocker
  local pressure="8 64"
  [ "$quick" = 1 ] && pressure=8
  for free_mib in ${GPU_VALIDATE_PRESSURE-$pressure}; do
    echo "-- memory pressure: all but $free_mib MiB held (fp32, graph API)"
    base=$(bounded python3 scripts/torch_train_step.py --steps $steps --profiled-steps 0 \
      --pressure-free-mib "$free_mib" --label "alone-$free_mib-MiB-free" | grep '^RESULT')
    echo "   $base"
    blocker=$(result_field "$base" blocker_bytes)
    [ -n "$blocker" ] || { status=1; continue; }
    # What PyTorch alone had beside the tensor (more than asked where it ran out of memory).
    free_mib=$(result_field "$base" free_mib)
    [ -n "$free_mib" ] || { status=1; continue; }
    # ucudnn measures first without the pressure (one step), as a job whose database was filled
    # beforehand: beside the blocker there is no memory to measure in, only to run.
    UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT="${free_mib}MiB" \
      bounded scripts/ucudnn-run python3 scripts/torch_train_step.py --steps 1 --warmup 1 \
      --profiled-steps 0 --label "ucudnn-$free_mib-MiB-measuring" >/dev/null 2>&1 || true
    line=$(UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT="${free_mib}MiB" \
      UCUDNN_LOG_LEVEL=info bounded scripts/ucudnn-run python3 scripts/torch_train_step.py \
      --steps $steps --profiled-steps 0 --blocker-bytes "$blocker" \
      --label "ucudnn-$free_mib-MiB" 2> "$out/log" | grep '^RESULT')
    echo "   $line"
    grep -E 'kernels planned' "$out/log" | sed 's/^ucudnn: info: */   /'
    echo "   graph API plans over the limit run as ucudnn's: $(grep -c 'being over the limit' "$out/log")"
    [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/log" "$GPU_VALIDATE_LOGS/pressure-$free_mib.log"
    [ -n "$line" ] && python3 -c "a=$(result_field "$base" median_ms); u=$(result_field "$line" median_ms); print(f'   ucudnn / alone: {u / a:.3f}x ({\"faster\" if u < a else \"NOT faster\"})')"
    # Without a limit set: each plan within its engine's workspace (no memory to spare), so
    # PyTorch finds every engine it finds alone, and runs no slower.
    [ "$quick" = 1 ] && continue
    line=$(UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_LOG_LEVEL=info bounded scripts/ucudnn-run \
      python3 scripts/torch_train_step.py --steps $steps --profiled-steps 0 \
      --blocker-bytes "$blocker" --label "ucudnn-no-limit" 2> "$out/log" | grep '^RESULT')
    echo "   ${line:-ucudnn without a limit left no result: $(tail -n 2 "$out/log" | cut -c1-200 | tr '\n' ' ')}"
    [ -n "$line" ] || status=1
    [ -n "$line" ] && python3 -c "a=$(result_field "$base" median_ms); u=$(result_field "$line" median_ms); print(f'   ucudnn without a limit / alone: {u / a:.3f}x')"
  done
  export TORCH_CUDNN_V8_API_DISABLED=1
  if [ "${GPU_VALIDATE_JAX:-1}" = 0 ]; then
    echo "-- JAX: not asked for (GPU_VALIDATE_JAX=0)"
  elif python3 -c 'import jax' 2>/dev/null; then
    echo "-- JAX: a jitted convolution step (forward and gradient)"
    base=$(bounded python3 scripts/jax_conv_step.py --label alone 2>/dev/null | grep '^RESULT')
    line=$(UCUDNN_DATABASE="$out/ucudnn-jax.db" UCUDNN_WORKSPACE_LIMIT=1GiB UCUDNN_LOG_LEVEL=info \
      bounded scripts/ucudnn-run python3 scripts/jax_conv_step.py --label ucudnn-1GiB 2> "$out/log" | grep '^RESULT')
    echo "   $base"
    echo "   $line"
    echo "   graph API plans ucudnn runs: $(grep -c "plan runs ucudnn's micro-batches" "$out/log"), left to cuDNN: $(grep -c "cuDNN runs the application's plan" "$out/log")"
    grep -E 'cudnnBackendExecute:|cudnnConvolution(Forward|BackwardData|BackwardFilter):' "$out/log" | sed 's/^ucudnn: info: */   /'
    [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/log" "$GPU_VALIDATE_LOGS/jax-1GiB.log"
    if [ -n "$base" ] && [ -n "$line" ]; then within_two_percent "$base" "|" "$line" || status=1; else status=1; fi
  else
    echo "gpu-validate: JAX is not installed here: its step not run"
  fi
  # The measurements the training runs took (what each first run measured and skipped can be
  # read off its log's "benchmarked" lines; the times, for planning offline, from here).
  [ -n "${GPU_VALIDATE_LOGS:-}" ] && [ -f "$out/ucudnn.db" ] && cp "$out/ucudnn.db" "$GPU_VALIDATE_LOGS/part5.db"
  rm -rf "$out"
}

find_nsys() {
  command -v nsys 2>/dev/null && return
  find /usr/local/cuda* /opt/nvidia -name nsys -type f -perm -u+x 2>/dev/null | head -1
}

# What a run that left no result is doing, for each process under PID: its threads' states and
# where they wait (a deadlock waits on futexes, a loop runs), the injection it was given (how
# nsys reaches it: LD_PRELOAD, LD_AUDIT, CUDA_INJECTION64_PATH), the tools and cuDNN it loaded,
# and its threads' stacks where gdb is installed.
describe_stuck() {
  local pids=$1 frontier=$1 p t children
  while [ -n "$frontier" ]; do
    children=""
    for p in $frontier; do children="$children $(pgrep -P "$p" | tr '\n' ' ')"; done
    frontier=$(echo $children)
    pids="$pids $frontier"
  done
  for p in $pids; do
    [ -r "/proc/$p/stat" ] || continue
    echo "process $p ($(cat /proc/$p/comm 2>/dev/null)), state $(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f1)"
    for t in /proc/$p/task/*; do
      echo "$(sed 's/.*) //' $t/stat 2>/dev/null | cut -d' ' -f1) $(cat $t/wchan 2>/dev/null)"
    done | sort | uniq -c | sed 's/^ */  threads: /'
    tr '\0' '\n' < /proc/$p/environ 2>/dev/null |
      grep -E '^(LD_PRELOAD|LD_AUDIT|CUDA_INJECTION64_PATH|NSYS_[A-Z_]*|UCUDNN_[A-Z_]*)=' | sed 's/^/  env /'
    echo "  loaded: $(grep -oE '[^/ ]*(ucudnn|Injection|nsys|Nsys|cupti|libcudnn)[^/ ]*\.so[.0-9]*' /proc/$p/maps 2>/dev/null | sort -u | tr '\n' ' ')"
    if [[ "$(cat /proc/$p/comm 2>/dev/null)" == python* ]] && command -v gdb > /dev/null; then
      timeout 25 gdb -p "$p" -batch -ex "thread apply all bt 10" 2>/dev/null |
        grep -E '^(Thread|#)' | cut -c1-160 | head -120 | sed 's/^/  /'
    fi
  done
}

# One run of the application under nsys: nsys_run LABEL RESULT COMMAND...; its output and
# nsys's, merged, in $out/LABEL.txt. What counts is the application's result (the file RESULT):
# nsys from Nsight Compute's folder records but cannot make a report (its importer is missing),
# and on an H200 it had not exited 50 s after a small PyTorch program finished; so nsys is given
# 20 s once RESULT appears, then stopped, and its own exit status is only reported.
nsys_run() {
  local label=$1 result=$2 start code limit=$nsys_limit pid done_at=0 stopped="" now
  shift 2
  start=$(date +%s)
  if [ "$deadline" -ne 0 ] && [ $((deadline - start)) -lt "$limit" ]; then limit=$((deadline - start)); fi
  if [ "$limit" -lt 10 ]; then
    echo "gpu-validate: no time left before the deadline: skipped nsys ($label)"
    return 0
  fi
  # The outer bound leaves time to describe a run stuck at $limit (describe_stuck).
  timeout --kill-after=5 $((limit + 90)) "$nsys" profile --trace=cuda,cudnn \
    --force-overwrite=true --output "$out/$label" "$@" > "$out/$label.txt" 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    now=$(date +%s)
    if [ -f "$result" ] && [ $done_at = 0 ]; then done_at=$now; fi
    # timeout passes the signal to its process group (nsys, ucudnn-run, the application)
    # and kills it after --kill-after.
    if [ $done_at != 0 ] && [ $((now - done_at)) -ge 20 ]; then
      stopped=", stopped 20 s after the application's result"
      kill -TERM $pid 2>/dev/null
      break
    fi
    if [ $done_at = 0 ] && [ $((now - start)) -ge "$limit" ]; then
      stopped=", stopped at $limit s without the application's result"
      echo "   nsys ($label): no result after $limit s; what its processes were doing:"
      timeout 80 bash -c "$(declare -f describe_stuck); describe_stuck $pid" > "$out/$label.stuck.txt" 2>&1
      head -n 150 "$out/$label.stuck.txt" | sed 's/^/     /'
      [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/$label.stuck.txt" "$GPU_VALIDATE_LOGS/"
      kill -TERM $pid 2>/dev/null
      break
    fi
    sleep 1
  done
  wait $pid
  code=$?
  [ -z "$stopped" ] && { [ $code -eq 124 ] || [ $code -eq 137 ]; } && stopped=", stopped at $limit s"
  echo "   nsys ($label): exit $code after $(($(date +%s) - start)) s$stopped; left: $(cd "$out" && ls -d "$label".* 2>/dev/null | grep -v '\.txt$' | tr '\n' ' ')"
  grep -vE "ucudnn-kernel/|plan within|_warn_once|UserWarning" "$out/$label.txt" | tail -n 4 | cut -c1-200 | sed 's/^/     /'
  [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/$label.txt" "$GPU_VALIDATE_LOGS/"
  return 0
}

part_6() {
  echo "== 6. beside a profiler: PyTorch under ucudnn-run inside nsys profile --trace=cuda,cudnn"
  if ! torch_has_gpu; then
    echo "gpu-validate: PyTorch with CUDA is not installed here: part 6 not run"
    return
  fi
  local nsys out api nsys_limit=${GPU_VALIDATE_NSYS_S:-90} apis="graph legacy"
  [ "$quick" = 1 ] && apis=graph
  nsys=$(find_nsys)
  if [ -z "$nsys" ]; then
    echo "gpu-validate: no nsys found (PATH, /usr/local/cuda*, /opt/nvidia): part 6 not run"
    return
  fi
  echo "   nsys: $nsys ($("$nsys" --version 2>&1 | head -1))"
  out=$(mktemp -d)
  for api in ${GPU_VALIDATE_NSYS_APIS:-$apis}; do
    if [ "$api" = legacy ]; then export TORCH_CUDNN_V8_API_DISABLED=1; else unset TORCH_CUDNN_V8_API_DISABLED; fi
    echo "-- $api API"
    bounded python3 scripts/torch_conv_check.py run --api $api --out "$out/base.pt" > /dev/null || status=1
    # The database filled first, outside nsys: what is timed inside is the steady state.
    UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT=64MiB bounded scripts/ucudnn-run \
      python3 scripts/torch_conv_check.py run --api $api --out "$out/filled.pt" > /dev/null 2>&1
    # As README advises under nsys: the preload alone (UCUDNN_RUN_AUDIT=0); then with the
    # auditor, which on an H200 left no output within 70-90 s inside nsys.
    local audit label
    for audit in 0 1; do
      label="nsys-$api$([ $audit = 0 ] && echo "-no-auditor")"
      rm -f "$out/shim.pt"
      UCUDNN_RUN_AUDIT=$audit UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT=64MiB \
        UCUDNN_LOG_LEVEL=info nsys_run "$label" "$out/shim.pt" scripts/ucudnn-run python3 \
        scripts/torch_conv_check.py run --api $api --out "$out/shim.pt"
      echo "   $([ $audit = 0 ] && echo "without" || echo "with") the auditor: kernels planned: $(grep -c 'plan within' "$out/$label.txt"), graph plans ucudnn ran: $(grep -c "plan runs ucudnn's micro-batches" "$out/$label.txt")"
      if [ -f "$out/shim.pt" ]; then
        python3 scripts/torch_conv_check.py compare "$out/base.pt" "$out/shim.pt" || status=1
      else
        echo "   the application under ucudnn inside nsys left no result"
        status=1
      fi
    done
  done
  export TORCH_CUDNN_V8_API_DISABLED=1
  rm -rf "$out"
}

for part in ${GPU_VALIDATE_PARTS:-1 2 3 4 5 6}; do
  case "$part" in
    1 | 2 | 3 | 4 | 5 | 6)
      part_start=$(date +%s)
      "part_$part"
      echo "== part $part took $(($(date +%s) - part_start)) s"
      ;;
    *) echo "gpu-validate: no part $part (parts are 1 to 6)"; status=1 ;;
  esac
done
exit $status
