# shellcheck shell=bash
# Part 6 of scripts/gpu-validate.sh (sourced by it): PyTorch under ucudnn-run inside nsys.

find_nsys() {
  command -v nsys 2>/dev/null && return
  find /usr/local/cuda* /opt/nvidia -name nsys -type f -perm -u+x 2>/dev/null | head -1
}

# What a run that left no result is doing, for each process under PID: its threads' states and
# where they wait (a deadlock waits on futexes, a loop runs), the injection it was given (how
# nsys reaches it: LD_PRELOAD, LD_AUDIT, CUDA_INJECTION64_PATH), the tools and cuDNN it loaded,
# and its threads' stacks where gdb is installed.
describe_stuck() {
  local pids=$1 frontier=$1 p t children
  while [ -n "$frontier" ]; do
    children=""
    for p in $frontier; do children="$children $(pgrep -P "$p" | tr '\n' ' ')"; done
    frontier=$(echo $children)
    pids="$pids $frontier"
  done
  # Each once: a process found by its command line is often also a child of another.
  pids=$(printf '%s\n' $pids | sort -un)
  for p in $pids; do
    [ -r "/proc/$p/stat" ] || continue
    echo "process $p ($(cat /proc/$p/comm 2>/dev/null)), state $(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f1)"
    for t in /proc/$p/task/*; do
      echo "$(sed 's/.*) //' $t/stat 2>/dev/null | cut -d' ' -f1) $(cat $t/wchan 2>/dev/null)"
    done | sort | uniq -c | sed 's/^ */  threads: /'
    tr '\0' '\n' < /proc/$p/environ 2>/dev/null |
      grep -E '^(LD_PRELOAD|LD_AUDIT|CUDA_INJECTION64_PATH|NSYS_[A-Z_]*|UCUDNN_[A-Z_]*)=' | sed 's/^/  env /'
    echo "  loaded: $(grep -oE '[^/ ]*(ucudnn|Injection|nsys|Nsys|cupti|libcudnn)[^/ ]*\.so[.0-9]*' /proc/$p/maps 2>/dev/null | sort -u | tr '\n' ' ')"
    if [[ "$(cat /proc/$p/comm 2>/dev/null)" == python* ]] && command -v gdb > /dev/null; then
      timeout 25 gdb -p "$p" -batch -ex "thread apply all bt 10" 2>/dev/null |
        grep -E '^(Thread|#)' | cut -c1-160 | head -120 | sed 's/^/  /'
    fi
  done
}

# One run of the application under nsys: nsys_run LABEL RESULT COMMAND...; its output and
# nsys's, merged, in $out/LABEL.txt. What counts is the application's result (the file RESULT):
# nsys from Nsight Compute's folder records but cannot make a report (its importer is missing),
# and on an H200 it had not exited 50 s after a small PyTorch program finished; so nsys is given
# 20 s once RESULT appears, then stopped, and its own exit status is only reported.
nsys_run() {
  local label=$1 result=$2 start code limit=$nsys_limit pid done_at=0 stopped="" now
  shift 2
  start=$(date +%s)
  if [ "$deadline" -ne 0 ] && [ $((deadline - start)) -lt "$limit" ]; then limit=$((deadline - start)); fi
  if [ "$limit" -lt 10 ]; then
    echo "gpu-validate: no time left before the deadline: skipped nsys ($label)"
    return 0
  fi
  # The outer bound leaves time to describe a run stuck at $limit (describe_stuck).
  # What nsys puts in the environment of what it profiles (how ucudnn-run knows it is inside).
  timeout --kill-after=5 $((limit + 90)) "$nsys" profile --trace=cuda,cudnn \
    --force-overwrite=true --output "$out/$label" bash -c 'env | grep -E "^(NSYS_[A-Z_0-9]*|CUDA_INJECTION64_PATH|LD_PRELOAD|LD_AUDIT)=" | sed "s/^/environment inside nsys: /"; exec "$@"' nsys-env "$@" > "$out/$label.txt" 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    now=$(date +%s)
    if [ -f "$result" ] && [ $done_at = 0 ]; then done_at=$now; fi
    # timeout passes the signal to its process group (nsys, ucudnn-run, the application)
    # and kills it after --kill-after.
    if [ $done_at != 0 ] && [ $((now - done_at)) -ge "$nsys_after" ]; then
      stopped=", stopped $nsys_after s after the application's result"
      kill -TERM $pid 2>/dev/null
      break
    fi
    if [ $done_at = 0 ] && [ $((now - start)) -ge "$limit" ]; then
      stopped=", stopped at $limit s without the application's result"
      echo "   nsys ($label): no result after $limit s; what its processes were doing:"
      # nsys's launcher leaves the application to another parent: found by its command line.
      timeout 80 bash -c "$(declare -f describe_stuck); describe_stuck '$pid $(pgrep -f "$result" | tr '\n' ' ')'" > "$out/$label.stuck.txt" 2>&1
      head -n 150 "$out/$label.stuck.txt" | sed 's/^/     /'
      [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/$label.stuck.txt" "$GPU_VALIDATE_LOGS/"
      kill -TERM $pid $(pgrep -f "$result") 2>/dev/null
      break
    fi
    sleep 1
  done
  wait $pid
  code=$?
  [ -z "$stopped" ] && { [ $code -eq 124 ] || [ $code -eq 137 ]; } && stopped=", stopped at $limit s"
  echo "   nsys ($label): exit $code after $(($(date +%s) - start)) s$stopped; left: $(cd "$out" && ls -d "$label".* 2>/dev/null | grep -v '\.txt$' | tr '\n' ' ')"
  grep -vE "ucudnn-kernel/|plan within|_warn_once|UserWarning" "$out/$label.txt" | tail -n 4 | cut -c1-200 | sed 's/^/     /'
  [ -n "${GPU_VALIDATE_LOGS:-}" ] && cp "$out/$label.txt" "$GPU_VALIDATE_LOGS/"
  return 0
}

part_6() {
  echo "== 6. beside a profiler: PyTorch under ucudnn-run inside nsys profile --trace=cuda,cudnn"
  if ! torch_has_gpu; then
    echo "gpu-validate: PyTorch with CUDA is not installed here: part 6 not run"
    return
  fi
  local nsys out api nsys_limit=${GPU_VALIDATE_NSYS_S:-90} apis="graph legacy"
  local nsys_after=${GPU_VALIDATE_NSYS_AFTER_S:-20}
  [ "$quick" = 1 ] && apis=graph
  nsys=$(find_nsys)
  if [ -z "$nsys" ]; then
    echo "gpu-validate: no nsys found (PATH, /usr/local/cuda*, /opt/nvidia): part 6 not run"
    return
  fi
  echo "   nsys: $nsys ($("$nsys" --version 2>&1 | head -1))"
  out=$(mktemp -d)
  for api in ${GPU_VALIDATE_NSYS_APIS:-$apis}; do
    if [ "$api" = legacy ]; then export TORCH_CUDNN_V8_API_DISABLED=1; else unset TORCH_CUDNN_V8_API_DISABLED; fi
    echo "-- $api API"
    bounded python3 scripts/torch_conv_check.py run --api $api --out "$out/base.pt" > /dev/null || status=1
    # The database filled first, outside nsys: what is timed inside is the steady state.
    UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT=64MiB bounded scripts/ucudnn-run \
      python3 scripts/torch_conv_check.py run --api $api --out "$out/filled.pt" > /dev/null 2>&1
    # The preload alone (UCUDNN_RUN_AUDIT=0); ucudnn-run as a user runs it (the auditor left
    # out inside nsys); the auditor asked for, which on an H200 once left no output within
    # 70-90 s inside nsys.
    local audit label
    for audit in ${GPU_VALIDATE_NSYS_AUDIT:-0 default 1}; do
      label="nsys-$api-auditor-$audit"
      # A result of its own: an application a stopped run left behind cannot write it.
      local result="$out/$label.pt"
      (
        [ "$audit" = default ] && unset UCUDNN_RUN_AUDIT || export UCUDNN_RUN_AUDIT=$audit
        UCUDNN_DATABASE="$out/ucudnn.db" UCUDNN_WORKSPACE_LIMIT=64MiB UCUDNN_LOG_LEVEL=info \
          nsys_run "$label" "$result" scripts/ucudnn-run python3 \
          scripts/torch_conv_check.py run --api $api --out "$result"
      )
      grep -E '^environment inside nsys|^ucudnn-run:|came back into ucudnn' "$out/$label.txt" | cut -c1-240 | sed 's/^/     /'
      echo "   UCUDNN_RUN_AUDIT=$audit: kernels planned: $(grep -c 'plan within' "$out/$label.txt"), graph plans ucudnn ran: $(grep -c "plan runs ucudnn's micro-batches" "$out/$label.txt")"
      if [ -f "$result" ]; then
        python3 scripts/torch_conv_check.py compare "$out/base.pt" "$result" || status=1
      elif [[ "${audit,,}" =~ ^(1|on|true|yes)$ ]]; then
        # Known (README, "Under Nsight Systems"): reported, not a failure of what users run.
        echo "   the application under ucudnn with the auditor asked for inside nsys left no result"
      else
        echo "   the application under ucudnn inside nsys left no result"
        status=1
      fi
    done
  done
  export TORCH_CUDNN_V8_API_DISABLED=1
  rm -rf "$out"
}
