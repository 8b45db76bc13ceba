#!/usr/bin/env bash
# Runs the unmodified example program (linked with the real -lcudnn -lcudart) on the test
# doubles and checks it really loaded them, that every selection mode gives the same
# results (the doubles compute exactly whatever the algorithm), and that threads agree.
# Usage: run_conv_network.sh CONV_NETWORK FAKECUDA_DIR
set -euo pipefail
program=$1
export LD_LIBRARY_PATH=$2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run NAME ARGS...: runs the program, output in $work/NAME.out, fails on a nonzero status.
run() {
  local name=$1
  shift
  local status=0
  FAKECUDA_TRACE=$work/$name.trace "$program" --batch 4 --iterations 2 "$@" >"$work/$name.out" \
    2>&1 || status=$?
  cat "$work/$name.out"
  [ "$status" -eq 0 ] || fail "conv_network $* exited with status $status"
  grep -q '^device: .*fakecuda' "$work/$name.out" || fail "the device is not the fakecuda double"
  grep -q '^fakecuda loaded pid=' "$work/$name.trace" || fail "the cuDNN double did not trace"
  [ "$(grep -c '^select ' "$work/$name.out")" -eq 15 ] || fail "expected 15 select lines"
  [ "$(grep -c '^iteration ' "$work/$name.out")" -eq 2 ] || fail "expected 2 iteration lines"
}

run v7 --select v7 --dump "$work/v7.bin"
run find --select find --dump "$work/find.bin"
run findex --select findex --workspace-limit 1MiB --threads 2 --dump "$work/findex.bin"
run no_workspace --select v7 --workspace-limit 0 --dump "$work/none.bin"
grep -q 'select conv2 Forward algo=0 memory=0 workspace=0' "$work/no_workspace.out" ||
  fail "with no workspace conv2 Forward should use IMPLICIT_GEMM"
for other in find findex none; do
  cmp -s "$work/v7.bin" "$work/$other.bin" || fail "$other results differ from v7's"
done
# The events measure the virtual clock: an iteration takes the modeled times of its 15
# convolutions (the trace's time_ms), nothing else.
[ "$(grep -c '^conv ' "$work/v7.trace")" -eq 30 ] || fail "expected 30 conv lines in the trace"
modeled=$(grep '^conv ' "$work/v7.trace" | head -15 | sed 's/.*time_ms=\([^ ]*\).*/\1/' |
  awk '{ sum += $1 } END { printf "%.6f", sum }')
grep -q "^iteration 0: $modeled ms" "$work/v7.out" ||
  fail "iteration 0 did not take the modeled $modeled ms"
echo "PASS"
