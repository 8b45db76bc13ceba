# shellcheck shell=bash
# Part 5 of scripts/gpu-validate.sh, under memory pressure (sourced by it).

# memory_pressure_runs OUT STEPS: for each X in GPU_VALIDATE_PRESSURE, PyTorch alone beside a
# tensor holding all but X MiB against ucudnn-run at X and without a limit; OUT holds the
# database and logs.
memory_pressure_runs() {
  local out=$1 steps=$2 base line
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
    # PyTorch finds every engine it finds alone, and runs no slower; where the pressure made it
    # take a slow engine, ucudnn may run a faster one's micro-batches in that engine's workspace.
    [ "${GPU_VALIDATE_PRESSURE_NO_LIMIT:-$([ "$quick" = 1 ] && echo 0 || echo 1)}" = 1 ] || continue
    line=$(UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_LOG_LEVEL=info bounded scripts/ucudnn-run \
      python3 scripts/torch_train_step.py --steps $steps --profiled-steps 0 \
      --blocker-bytes "$blocker" --label "ucudnn-no-limit" 2> "$out/log" | grep '^RESULT')
    echo "   ${line:-ucudnn without a limit left no result: $(tail -n 2 "$out/log" | cut -c1-200 | tr '\n' ' ')}"
    [ -n "$line" ] || status=1
    grep -E 'kernels planned' "$out/log" | sed 's/^ucudnn: info: */   /'
    echo "   graph API plans ucudnn runs: $(grep -c "plan runs ucudnn's micro-batches" "$out/log"), left to cuDNN: $(grep -c "cuDNN runs the application's plan" "$out/log")"
    [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/log" "$GPU_VALIDATE_LOGS/pressure-$free_mib-no-limit.log"
    [ -n "$line" ] && python3 -c "a=$(result_field "$base" median_ms); u=$(result_field "$line" median_ms); print(f'   ucudnn without a limit / alone: {u / a:.3f}x ({\"faster\" if u < a else \"NOT faster\"})')"
  done
  export TORCH_CUDNN_V8_API_DISABLED=1
}
