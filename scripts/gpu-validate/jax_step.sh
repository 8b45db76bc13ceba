# shellcheck shell=bash
# Part 5 of scripts/gpu-validate.sh, a jitted JAX convolution step (sourced by it).

# jax_step_runs OUT: alone and under ucudnn at 1 GiB, within 2%; OUT holds the database and log.
jax_step_runs() {
  local out=$1 base line
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
}
