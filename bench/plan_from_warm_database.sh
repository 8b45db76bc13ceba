#!/usr/bin/env bash
# `ucudnn plan` on ResNet-50 from a warm database, on the cuDNN test doubles: each build
# measures the network once into its own database (`ucudnn bench`), then the builds' `plan`
# runs take turns, RUNS each, and the median wall time of each is printed with its ratio to
# the first build's. Taking turns spreads the noise of a shared machine over all of them.
# Usage: plan_from_warm_database.sh RUNS BUILD_DIR [BUILD_DIR...]
#   (each BUILD_DIR a build with the test doubles, e.g. build/release; FAKECUDA_DIR, if set,
#   names the doubles all builds run on)
set -euo pipefail
runs=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
network=(--network resnet50 --batch 8 --backend cudnn --workspace-limit 64MiB
  --total-workspace 512MiB)
export FAKECUDA_COMPUTE=0 UCUDNN_BENCHMARK_REPEATS=1

builds=("$@")
for i in "${!builds[@]}"; do
  LD_LIBRARY_PATH=${FAKECUDA_DIR:-${builds[$i]}/fakecuda} "${builds[$i]}/src/cli/ucudnn" bench "${network[@]}" \
    --no-check-plans --database "$work/$i.db" >/dev/null
done
for run in $(seq "$runs"); do
  for i in "${!builds[@]}"; do
    start=$(date +%s%N)
    LD_LIBRARY_PATH=${FAKECUDA_DIR:-${builds[$i]}/fakecuda} "${builds[$i]}/src/cli/ucudnn" plan "${network[@]}" \
      --database "$work/$i.db" >/dev/null
    echo $((($(date +%s%N) - start) / 1000)) >>"$work/$i.times"
  done
done
first=""
for i in "${!builds[@]}"; do
  median=$(sort -n "$work/$i.times" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  first=${first:-$median}
  awk -v b="${builds[$i]}" -v m="$median" -v f="$first" -v n="$runs" \
    'BEGIN {printf "%-40s median %8.1f ms over %d runs (%.2fx the first)\n", b, m / 1000, n, m / f}'
done
