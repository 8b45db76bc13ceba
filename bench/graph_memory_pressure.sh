#!/usr/bin/env bash
# The graph API under memory pressure: examples/graph_conv trains its layers as PyTorch does,
# taking for each operation the first engine configuration whose workspace it can have
# (--workspace-memory M: at most M bytes), alone and under the ucudnn shim at
# UCUDNN_WORKSPACE_LIMIT=M, where the heuristics' first engine runs as micro-batches within M.
# Prints per M the GPU time of the last iteration of every layer (CUDA events on the stream)
# alone, with ucudnn, their ratio, and alone without pressure; on the doubles also under ucudnn
# without a limit set, on a device nearly full (FAKECUDA_MEMORY_BYTES, 256 MiB here: no memory
# to spare, so each plan stays within its engine's workspace and the program runs as alone).
#
# On the cuDNN test doubles (default) the GPU time is the doubles' cost model, exactly, so one
# run per side is enough; FAKECUDA_GPU_SLOWDOWN (default 100 here) makes the small layers as
# long as real ones, so that the launch cost does not dominate. With --real the example runs on
# the cuDNN and GPU of the environment (RUNS runs per side, alternating, medians).
# Usage: graph_memory_pressure.sh BUILD_DIR [--real] [--batch N] [--runs RUNS] [M ...]
#   (M in bytes; default 65536 204800 1048576)
set -euo pipefail
build=$1
shift
real=0 batch=8 runs=1
limits=()
while [ $# -gt 0 ]; do
  case $1 in
    --real) real=1 runs=5 ;;
    --batch) batch=$2 && shift ;;
    --runs) runs=$2 && shift ;;
    *) limits+=("$1") ;;
  esac
  shift
done
[ ${#limits[@]} -gt 0 ] || limits=(65536 204800 1048576)
example=$build/examples/graph_conv
preload=$build/src/shim/libucudnn_preload.so
[ -x "$example" ] && [ -f "$preload" ] || { echo "no graph_conv or shim in $build" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $real = 0 ]; then
  export LD_LIBRARY_PATH=$build/fakecuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export FAKECUDA_GPU_SLOWDOWN=${FAKECUDA_GPU_SLOWDOWN:-100}
  export FAKECUDA_MEMORY_BYTES=${FAKECUDA_MEMORY_BYTES:-268435456}
fi

# The last iteration's GPU ms of one run.
gpu_ms() {
  "$@" | sed -n 's/^graph_conv: last iterations \([0-9.e+-]*\) ms.*/\1/p'
}
median() {
  sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

args=(--batch "$batch" --iterations 3)
for run in $(seq "$runs"); do gpu_ms "$example" "${args[@]}" >>"$work/unlimited"; done
unlimited=$(median <"$work/unlimited")
printf '%-12s %14s %14s %8s %22s %20s\n' "workspace" "alone ms" "ucudnn ms" "ratio" \
  "alone, no pressure ms" "ucudnn, no limit ms"
for m in "${limits[@]}"; do
  for run in $(seq "$runs"); do
    gpu_ms "$example" "${args[@]}" --workspace-memory "$m" >>"$work/alone-$m"
    gpu_ms env UCUDNN_DATABASE="$work/ucudnn.db" UCUDNN_WORKSPACE_LIMIT="$m" LD_PRELOAD="$preload" \
      "$example" "${args[@]}" --workspace-memory "$m" >>"$work/ucudnn-$m"
  done
  alone=$(median <"$work/alone-$m")
  with=$(median <"$work/ucudnn-$m")
  # The pressure of --real is the example's alone (the GPU has memory to spare): not measured.
  no_limit=-
  [ $real = 0 ] && no_limit=$(gpu_ms env UCUDNN_DATABASE="$work/ucudnn.db" LD_PRELOAD="$preload" \
    "$example" "${args[@]}" --workspace-memory "$m" 2>/dev/null || true)
  awk -v m="$m" -v a="$alone" -v u="$with" -v n="$unlimited" -v d="${no_limit:-failed}" \
    'BEGIN {printf "%-12s %14.4f %14.4f %7.2fx %22.4f %20s\n", m " B", a, u, a / u, n, d}'
done
