#!/usr/bin/env bash
# Sets up (installs dependencies) and builds one CMake preset: release (default), debug, asan.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
bash scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
