# shellcheck shell=bash
# Part 3 of scripts/gpu-validate.sh (sourced by it): undivided vs WR vs WD, µ-cuDNN's table.

part_3() {
  echo "== 3. undivided vs WR vs WD (µ-cuDNN Figs. 10 and 13)"
  local bench="$build/bench/ucudnn-bench-cudnn" batches="256 64" policies="powerOfTwo all"
  # On an H200 the quick ones took 25 s and 6 s; the policy "all" at batch 64 takes minutes.
  [ "$quick" = 1 ] && batches=64 policies=powerOfTwo
  batches=${GPU_VALIDATE_TABLE_BATCHES:-$batches}
  policies=${GPU_VALIDATE_TABLE_POLICIES:-$policies}
  local limits=${GPU_VALIDATE_TABLE_LIMITS:-8MiB 64MiB 512MiB}
  # shellcheck disable=SC2086 # lists of words
  bounded "$bench" --networks alexnet --batches $batches --limits $limits --policies $policies --run || status=1
  # shellcheck disable=SC2086
  bounded "$bench" --networks resnet50 --batches $batches --limits $limits --policies $policies || status=1
  # The same with the knob variants of the configurations over the smallest limit
  # (UCUDNN_KNOB_VARIANTS), to set beside the runs above.
  [ "${GPU_VALIDATE_TABLE_KNOBS:-1}" = 1 ] || return 0
  echo "-- with knob variants (--knob-variants)"
  # shellcheck disable=SC2086
  bounded "$bench" --networks alexnet --batches $batches --limits $limits --policies $policies \
    --knob-variants --run || status=1
  # shellcheck disable=SC2086
  bounded "$bench" --networks resnet50 --batches $batches --limits $limits --policies $policies \
    --knob-variants || status=1
}
