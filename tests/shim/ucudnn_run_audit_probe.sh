#!/bin/sh
# ucudnn_run_audit_probe.sh UCUDNN_RUN AUDITOR EXPECTED SAID [VARIABLE=VALUE...]
# Runs a command under scripts/ucudnn-run with AUDITOR as both its libraries (never
# instrumented: the command must run under the sanitizers too; as the preload, under the
# preload's name), nothing inherited that decides
# the auditor (LD_AUDIT, UCUDNN_RUN_AUDIT, Nsight Systems' markers), and the variables given.
# Passes where the command saw LD_AUDIT=EXPECTED and what ucudnn-run printed contains SAID (an
# empty SAID: it printed nothing).
run=$1 auditor=$2 expected=$3 said=$4
shift 4
# ucudnn-run refuses the auditor by its name as the preload: here it goes by the preload's.
folder=$(mktemp -d) || exit 2
printed="$folder/printed"
preload="$folder/libucudnn_preload.so"
ln -s "$auditor" "$preload" || exit 2
seen=$(env -u LD_AUDIT -u UCUDNN_RUN_AUDIT -u NSYS_PROFILING_SESSION_ID -u CUDA_INJECTION64_PATH \
  -u LD_PRELOAD UCUDNN_PRELOAD_LIBRARY="$preload" UCUDNN_AUDIT_LIBRARY="$auditor" "$@" \
  "$run" sh -c 'echo "$LD_AUDIT"' 2>"$printed")
message=$(cat "$printed")
rm -rf "$folder"
echo "LD_AUDIT=[$seen]; ucudnn-run printed: [$message]"
[ "$seen" = "$expected" ] || exit 1
if [ -z "$said" ]; then [ -z "$message" ]; exit; fi
case "$message" in *"$said"*) exit 0 ;; esac
exit 1
