#!/usr/bin/env bash
# How the plan database grows when Find*Ex limits change from run to run, as they do under a
# framework that passes its free memory as the workspace: runs the unmodified example on the
# cuDNN test doubles under LD_PRELOAD RUNS times, each with a limit drawn from [LOW, HIGH]
# bytes, and prints the plan rows after each tenth run.
# Usage: plan_rows_growth.sh BUILD_DIR [RUNS] [LOW] [HIGH] [SEED]
#   (BUILD_DIR: a build with the test doubles, e.g. build/release)
set -euo pipefail
build=$1 runs=${2:-100} low=${3:-393216} high=${4:-3145728} seed=${5:-$RANDOM}
preload=$build/src/shim/libucudnn_preload.so fakecuda=$build/fakecuda
program=$build/examples/conv_network
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "seed $seed, $runs runs, limits in [$low, $high] bytes, $preload"
RANDOM=$seed
for run in $(seq "$runs"); do
  limit=$((low + (RANDOM * 32768 + RANDOM) % (high - low + 1)))
  LD_LIBRARY_PATH=$fakecuda LD_PRELOAD=$preload UCUDNN_DATABASE=$work/plans.db \
    UCUDNN_BENCHMARK_REPEATS=1 "$program" --batch 16 --iterations 1 --select findex \
    --workspace-limit "$limit" >/dev/null 2>"$work/err" || {
    cat "$work/err" >&2
    exit 1
  }
  if ((run % 10 == 0)); then
    "$build/src/cli/ucudnn" db info --database "$work/plans.db" |
      sed -n "s/^.* measurements, \([0-9]*\) plans.*/after $run runs: \1 plan rows/p" | head -1
  fi
done
