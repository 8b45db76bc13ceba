#!/usr/bin/env bash
# Builds targets of a preset under a lock, so that two builds never run at once on this
# 2-core machine. Usage: scripts/locked-build.sh PRESET [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
targets=()
for t in "$@"; do targets+=(--target "$t"); done
exec flock /tmp/ucudnn-build.lock bash -c \
  "cmake --preset $preset >/dev/null && cmake --build --preset $preset ${targets[*]:-}"
