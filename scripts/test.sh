#!/usr/bin/env bash
# Sets up, builds and runs every test. Usage: scripts/test.sh [release|debug|asan]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
bash scripts/setup.sh --with-browser  # the report test renders its page in chromium
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j 2
