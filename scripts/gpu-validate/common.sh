# shellcheck shell=bash
# What every part of scripts/gpu-validate.sh uses (sourced by it): the deadline, the shim's
# account of its CUDA calls, PyTorch's GPU, RESULT lines and the 2% gate.

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
