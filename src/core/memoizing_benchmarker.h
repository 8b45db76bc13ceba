#pragma once
// Wraps a Benchmarker so that nothing is measured twice: keyed by the kernel at the
// micro-batch size (so identical layers and shared micro-batch sizes measure once),
// the algorithm, and the backend. Thread-safe.
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "core/benchmarker.h"

namespace ucudnn {

class MemoizingBenchmarker final : public Benchmarker {
 public:
  explicit MemoizingBenchmarker(Benchmarker& inner) : inner_(inner) {}

  std::string backend_name() const override { return inner_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return inner_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override;
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;

  std::size_t measurements_taken() const;  // calls that reached the inner benchmarker

 private:
  Benchmarker& inner_;
  mutable std::mutex mutex_;
  std::unordered_map<KernelKey, std::vector<std::string>, KernelKeyHash> algorithms_;
  std::map<std::tuple<std::string, std::string>, std::optional<Measurement>> results_;
  std::size_t measurements_taken_ = 0;
};

}  // namespace ucudnn
