# shellcheck shell=bash
# Part 3 of scripts/gpu-validate.sh (sourced by it): undivided vs WR vs WD, µ-cuDNN's table.

part_3() {
  echo "== 3. undivided vs WR vs WD (µ-cuDNN Figs. 10 and 13)"
  local bench="$build/bench/ucudnn-bench-cudnn"
  if [ "$quick" = 1 ]; then
    # On an H200 these took 25 s and 6 s; the policy "all" at batch 64 takes minutes.
    bounded "$bench" --networks alexnet --batches 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo --run || status=1
    bounded "$bench" --networks resnet50 --batches 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo || status=1
  else
    bounded "$bench" --networks alexnet --batches 256 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo all --run || status=1
    bounded "$bench" --networks resnet50 --batches 256 64 --limits 8MiB 64MiB 512MiB --policies powerOfTwo all || status=1
  fi
}
