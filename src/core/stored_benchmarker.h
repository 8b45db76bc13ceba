#pragma once
// Wraps a device's Benchmarker with a BenchmarkStore: a result already stored under the
// device's fingerprint is returned without measuring; a new one is measured and stored. So
// a second run of the same program, or a job on a node of a pre-benchmarked cluster, does
// no benchmarking. Put a MemoizingBenchmarker in front to spare the store's lookups.
#include <atomic>

#include "core/benchmark_store.h"

namespace ucudnn {

class StoredBenchmarker final : public Benchmarker {
 public:
  StoredBenchmarker(Benchmarker& inner, BenchmarkStore& store)
      : inner_(inner),
        store_(store),
        fingerprint_(inner.fingerprint()),
        fingerprint_text_(fingerprint_.to_string()) {}

  std::string backend_name() const override { return inner_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return fingerprint_; }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    return inner_.algorithms(kernel);
  }
  // A measurement the device cannot take now (MeasurementUnavailable) is not stored and
  // reaches the caller.
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;

  // Asked of the device (not found stored): in all, and those that ran and were timed (the
  // others do not apply at their shape, need more workspace than the limit, or cannot be
  // measured now).
  std::size_t measurements_taken() const { return measurements_taken_; }
  std::size_t measurements_run() const { return measurements_run_; }

 private:
  Benchmarker& inner_;
  BenchmarkStore& store_;
  DeviceFingerprint fingerprint_;
  std::string fingerprint_text_;
  std::atomic<std::size_t> measurements_taken_{0}, measurements_run_{0};
};

}  // namespace ucudnn
