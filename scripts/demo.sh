#!/usr/bin/env bash
# The main job: sets up, builds, benchmarks AlexNet on the CPU backend into the default
# database (UCUDNN_DATABASE, else $XDG_CACHE_HOME/ucudnn/ucudnn.db or ~/.cache/ucudnn/ucudnn.db)
# and plans it under a per-kernel workspace limit of 8 MiB: each kernel's micro-batches and
# solvers, and the plans run for real against the fastest undivided solvers that fit. Then
# `ucudnn plan` prints the plan again from the database alone, measuring nothing, and
# `ucudnn report` draws it into ucudnn-report.html (open it in a browser); a second demo
# measures nothing either. Extra arguments go to `ucudnn bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release
tool=./build/release/src/cli/ucudnn
network=(--network alexnet --batch 32 --backend cpu --policy powerOfTwo --workspace-limit 8MiB)
"$tool" bench "${network[@]}" "$@"
echo
"$tool" plan "${network[@]}"
echo
"$tool" report "${network[@]}" --out ucudnn-report.html
