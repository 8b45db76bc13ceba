# shellcheck shell=bash
# Part 4 of scripts/gpu-validate.sh (sourced by it): CPU/GPU hybrid under PyTorch, and the
# measured sweep over the CPU's share.

part_4() {
  echo "== 4. CPU/GPU hybrid (UCUDNN_HYBRID): PyTorch's results with the CPU taking a share"
  if torch_has_gpu; then
    local out modes="on auto" hybrid
    [ "$quick" = 1 ] && modes=on
    out=$(mktemp -d)
    export TORCH_CUDNN_V8_API_DISABLED=1
    bounded python3 scripts/torch_conv_check.py run --out "$out/base.pt" || status=1
    for hybrid in $modes; do
      echo "-- under the preload, UCUDNN_HYBRID=$hybrid"
      UCUDNN_DATABASE="$out/ucudnn-$hybrid.db" UCUDNN_HYBRID=$hybrid UCUDNN_LOG_LEVEL=info \
        bounded scripts/ucudnn-run python3 scripts/torch_conv_check.py run --out "$out/shim.pt" \
        > "$out/log" 2>&1 || status=1
      grep -E 'hybrid|error|Error' "$out/log" | head -20
      runtime_calls "$out/log"
      grep -E 'forward\+backward|relative error' "$out/log"
      python3 scripts/torch_conv_check.py compare "$out/base.pt" "$out/shim.pt" || status=1
    done
    rm -rf "$out"
  else
    echo "gpu-validate: PyTorch with CUDA is not installed here: part 4's PyTorch run not done"
  fi
  # The planner's split against the throughput rule needs no GPU (it runs on the doubles too).
  [ "$quick" = 1 ] || bounded "$build/bench/ucudnn-bench-hybrid" --batch 32 --operations all || status=1
  # Measured: the GPU alone vs every split of AlexNet's kernels at batch 64.
  bounded "$build/bench/ucudnn-bench-hybrid-gpu" --batch 64 --step "${GPU_VALIDATE_HYBRID_STEP:-4}" \
    --operations "${GPU_VALIDATE_HYBRID_OPERATIONS:-all}" || status=1
}
