# shellcheck shell=bash
# Part 5 of scripts/gpu-validate.sh (sourced by it): a real model. ResNet-50 training steps
# alone and under ucudnn (the 2% gate, the warm-up against cudnn.benchmark), then memory
# pressure (memory_pressure.sh) and a JAX step (jax_step.sh).

# From the shim's info log: the kernels measured, the (candidate, micro-batch) pairs asked of
# the device, those of them that ran and were timed (cuDNN refuses many configurations at small
# shapes), and those skipped as unable to win.
warmup_pairs() {
  awk '/benchmarked [0-9]+ \(algorithm/ {
    for (i = 2; i <= NF; i++)
      if ($(i - 1) == "benchmarked") asked += $i
      else if ($i == "ran" && $(i - 1) ~ /^\([0-9]+$/) ran += substr($(i - 1), 2)
      else if ($i == "could" && $(i - 1) ~ /^[0-9]+$/) skipped += $(i - 1)
    k++
  }
  END { printf "%d kernels measured: %d (candidate, micro-batch) pairs asked, %d ran and were timed, %d skipped as unable to win", k, asked, ran, skipped }' "$1"
}

# warmup_every_configuration OUT PRECISION LOG: beside the first run's warm-up (LOG, the
# heuristics' first UCUDNN_BENCHMARK_LIMIT configurations), the same first run measuring every
# configuration (UCUDNN_BENCHMARK_LIMIT=0) in a database of its own, and both runs' planned
# convolution time: what the limit saves and what it costs, side by side
# (GPU_VALIDATE_WARMUP_EVERY=0 leaves it out). Its database, every configuration measured, is
# what bench/benchmark_limit_replay.py replays.
warmup_every_configuration() {
  local out=$1 precision=$2 first_log=$3 line
  [ "${GPU_VALIDATE_WARMUP_EVERY:-1}" = 1 ] || return 0
  line=$(UCUDNN_DATABASE="$out/every-$precision.db" UCUDNN_WORKSPACE_LIMIT=1GiB \
    UCUDNN_LOG_LEVEL=info UCUDNN_BENCHMARK_LIMIT=0 bounded scripts/ucudnn-run python3 \
    scripts/torch_train_step.py --precision "$precision" --steps 10 --profiled-steps 0 \
    --label ucudnn-1GiB-every-configuration 2> "$out/every.log" | grep '^RESULT')
  echo "   $line"
  echo "   warm-up measuring every configuration: $(result_field "$line" warmup_s) s; $(warmup_pairs "$out/every.log")"
  grep -E 'measuring [0-9]+ kernels? took' "$out/every.log" | sed 's/^ucudnn: info: */   every configuration: /'
  grep -E 'kernels planned' "$first_log" | sed 's/^ucudnn: info: */   the first 10: /'
  grep -E 'kernels planned' "$out/every.log" | sed 's/^ucudnn: info: */   every configuration: /'
  if [ -n "${GPU_VALIDATE_LOGS:-}" ]; then
    cp "$out/every.log" "$GPU_VALIDATE_LOGS/train-$precision-every-configuration.log"
    [ -f "$out/every-$precision.db" ] && cp "$out/every-$precision.db" "$GPU_VALIDATE_LOGS/part5-every-$precision.db"
  fi
  return 0
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
    # 1GiB first: it is the gate's run, and the first of a precision meets an empty database.
    limits=${GPU_VALIDATE_TRAIN_LIMITS:-$limits}
    local run knobs
    for run in $limits; do
      # "64MiB+knobs": that limit with UCUDNN_KNOB_VARIANTS=on (smaller-workspace knob values of
      # the configurations over it), to set beside the same limit without.
      limit=${run%+knobs} knobs=${UCUDNN_KNOB_VARIANTS:-off}
      [ "$run" != "$limit" ] && knobs=on
      line=$(UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT=$limit UCUDNN_LOG_LEVEL=info \
        UCUDNN_KNOB_VARIANTS=$knobs bounded scripts/ucudnn-run python3 scripts/torch_train_step.py \
        --precision $precision --steps $steps --label "ucudnn-$run" 2> "$out/log" | grep '^RESULT')
      echo "   $line"
      [ -n "$line" ] || { status=1; tail -5 "$out/log"; continue; }
      echo "   graph API plans ucudnn runs: $(grep -c "plan runs ucudnn's micro-batches" "$out/log") ($(grep -c 'being over the limit' "$out/log") of them with an engine over the limit), left to cuDNN: $(grep -c "cuDNN runs the application's plan" "$out/log")"
      grep -E 'cudnnBackendExecute:|cudnnConvolution(Forward|BackwardData|BackwardFilter):' "$out/log" | sed 's/^ucudnn: info: */   /'
      runtime_calls "$out/log" || status=1
      [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/log" "$GPU_VALIDATE_LOGS/train-$precision-$api-$run.log"
      if [ "$run" = 1GiB ]; then
        gate=("$line")
        # This precision's kernels are not in the database yet: the first run measures them.
        measured_precisions="$measured_precisions $precision"
        [ -n "$autotuned" ] && echo "   warm-up with an empty database: ucudnn $(result_field "$line" warmup_s) s, PyTorch's cudnn.benchmark $(result_field "$autotuned" warmup_s) s, PyTorch without it $(result_field "$base" warmup_s) s; $(warmup_pairs "$out/log")"
        # Where ucudnn's warm-up went: measuring's phases, the plans built outside it, slow
        # finalizes.
        grep -E 'measuring [0-9]+ kernels? took|outside measuring, [0-9]+ plans?' "$out/log" | sed 's/^ucudnn: info: */   /'
        [ -n "$autotuned" ] && warmup_every_configuration "$out" "$precision" "$out/log"
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
  memory_pressure_runs "$out" "$steps"
  jax_step_runs "$out"
  # The measurements the training runs took (what each first run measured and skipped can be
  # read off its log's "benchmarked" lines; the times, for planning offline, from here).
  [ -n "${GPU_VALIDATE_LOGS:-}" ] && [ -f "$out/ucudnn.db" ] && cp "$out/ucudnn.db" "$GPU_VALIDATE_LOGS/part5.db"
  rm -rf "$out"
}
