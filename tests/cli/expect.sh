#!/usr/bin/env bash
# Usage: expect.sh STATUS REGEX COMMAND...   STATUS is "fail" (non-zero exit) or "pass".
# Runs COMMAND and checks its exit status and that its output (stdout+stderr) matches REGEX.
set -u
want=$1 regex=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output" | tail -n 20
if [ "$want" = fail ] && [ $status -eq 0 ]; then echo "expected a failure, got exit 0"; exit 1; fi
if [ "$want" = pass ] && [ $status -ne 0 ]; then echo "expected success, got exit $status"; exit 1; fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then echo "output does not match: $regex"; exit 1; fi
echo "ok: exit $status, output matches $regex"
