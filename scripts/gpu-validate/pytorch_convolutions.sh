# shellcheck shell=bash
# Part 2 of scripts/gpu-validate.sh (sourced by it): PyTorch's convolutions with and without
# ucudnn, legacy and graph API, results compared.

part_2() {
  echo "== 2. PyTorch with and without ucudnn, legacy API and graph API"
  if ! torch_has_gpu; then
    echo "gpu-validate: PyTorch with CUDA is not installed here: part 2 not run"
    return
  fi
  # 64 MiB: ucudnn's default limit, below what PyTorch's own choices use; 1 GiB: above them,
  # the shim should then cost nothing.
  local limits out api mode limit
  out=$(mktemp -d)
  for api in legacy graph; do
    limits="64MiB 1GiB"
    # Quick: 1 GiB for PyTorch's default API only.
    [ "$quick" = 1 ] && [ $api = legacy ] && limits=64MiB
    if [ "$api" = legacy ]; then export TORCH_CUDNN_V8_API_DISABLED=1; else unset TORCH_CUDNN_V8_API_DISABLED; fi
    for mode in "" "--benchmark"; do
      echo "-- $api API, torch.backends.cudnn.benchmark=$([ -n "$mode" ] && echo True || echo False)"
      bounded python3 scripts/torch_conv_check.py run --api $api --out "$out/base.pt" $mode || status=1
      for limit in $limits; do
        echo "-- under ucudnn-run, UCUDNN_WORKSPACE_LIMIT=$limit"
        UCUDNN_DATABASE="$out/ucudnn-$limit.db" UCUDNN_WORKSPACE_LIMIT=$limit UCUDNN_LOG_LEVEL=info \
          bounded scripts/ucudnn-run python3 scripts/torch_conv_check.py run --api $api \
          --out "$out/shim.pt" $mode 2> "$out/log" || status=1
        echo "   graph API plans ucudnn ran: $(grep -c "plan runs ucudnn's micro-batches" "$out/log")"
        echo "   kernels planned: $(grep -c 'plan within' "$out/log")"
        grep -E 'error|Error|warning' "$out/log" | sort | uniq -c | sort -rn | head -8
        runtime_calls "$out/log" || status=1
        python3 scripts/torch_conv_check.py compare "$out/base.pt" "$out/shim.pt" || status=1
      done
    done
  done
  export TORCH_CUDNN_V8_API_DISABLED=1
  rm -rf "$out"
}
