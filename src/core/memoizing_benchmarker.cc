#include "core/memoizing_benchmarker.h"

namespace ucudnn {

std::vector<std::string> MemoizingBenchmarker::algorithms(const KernelKey& kernel) {
  std::lock_guard lock(mutex_);
  auto found = algorithms_.find(kernel);
  if (found != algorithms_.end()) return found->second;
  return algorithms_.emplace(kernel, inner_.algorithms(kernel)).first->second;
}

std::optional<Measurement> MemoizingBenchmarker::benchmark(const KernelKey& kernel,
                                                           const std::string& algorithm,
                                                           std::int64_t micro_batch) {
  // The measurement depends on the kernel only through its micro-batch problem.
  auto key = std::make_tuple(kernel.with_batch(micro_batch).to_string(), algorithm);
  std::lock_guard lock(mutex_);
  auto found = results_.find(key);
  if (found != results_.end()) return found->second;
  ++measurements_taken_;
  // MeasurementUnavailable is not remembered: a later call measures again.
  const std::optional<Measurement> result = inner_.benchmark(kernel, algorithm, micro_batch);
  results_.emplace(std::move(key), result);
  return result;
}

std::size_t MemoizingBenchmarker::measurements_taken() const {
  std::lock_guard lock(mutex_);
  return measurements_taken_;
}

}  // namespace ucudnn
