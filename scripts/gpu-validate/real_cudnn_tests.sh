# shellcheck shell=bash
# Part 1 of scripts/gpu-validate.sh (sourced by it): the tests against the real cuDNN.

part_1() {
  echo "== 1. tests against the real cuDNN (legacy and graph API, loading by path)"
  local full=/dev/null
  [ -n "${GPU_VALIDATE_LOGS:-}" ] && mkdir -p "$GPU_VALIDATE_LOGS" && full=$GPU_VALIDATE_LOGS/realcudnn.log
  bounded ctest --test-dir "$build" -R 'RealCudnn' --output-on-failure -V 2>&1 | tee "$full" |
    grep -E 'real cuDNN|Passed|Failed|Skipped|SKIPPED|tests passed|Failure|Expected|Which is|actual'
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}
