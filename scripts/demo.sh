#!/usr/bin/env bash
# The main job: sets up, builds, and plans AlexNet on the CPU backend under a per-kernel
# workspace limit of 8 MiB: each kernel's micro-batches and solvers, and the plan run for
# real against the fastest undivided solver that fits. Extra arguments go to `ucudnn bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release
./build/release/src/cli/ucudnn bench --network alexnet --batch 32 --backend cpu --policy powerOfTwo \
  --workspace-limit 8MiB "$@"
