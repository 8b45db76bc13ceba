#!/usr/bin/env bash
# The main job: sets up, builds, and plans ResNet-50's convolutions at batch 256 through the
# WR dynamic program, the Pareto fronts and the WD integer program.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh release
./build/release/bench/ucudnn-bench-planner "$@"
