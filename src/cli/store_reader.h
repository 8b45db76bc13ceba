#pragma once
// A Benchmarker that never measures: it answers from stores (the first that has the result
// wins) and remembers what none of them has. `ucudnn plan` plans with it, and `ucudnn bench`
// after its measurements are in, so that planning reads exactly what was stored.
#include <functional>
#include <mutex>
#include <set>
#include <tuple>

#include "core/benchmark_store.h"

namespace ucudnn::cli {

using AlgorithmLister = std::function<std::vector<std::string>(const KernelKey&)>;

class StoreReader final : public Benchmarker {
 public:
  // `fingerprint`: the canonical text the stores key results by.
  StoreReader(std::string backend, std::string fingerprint, AlgorithmLister algorithms,
              std::vector<BenchmarkStore*> stores);

  std::string backend_name() const override { return backend_; }
  DeviceFingerprint fingerprint() const override;
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    return algorithms_(kernel);
  }
  // nullopt, and remembered as missing, when no store has the result.
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;

  struct Missing {
    std::string kernel;  // the full-batch kernel's key text
    std::int64_t micro_batch;
    std::string algorithm;
    auto operator<=>(const Missing&) const = default;
  };
  std::set<Missing> missing() const;
  // The kernels (full-batch key text) some store had a measurement of.
  std::set<std::string> answered() const;

 private:
  std::string backend_;
  std::string fingerprint_text_;
  AlgorithmLister algorithms_;
  std::vector<BenchmarkStore*> stores_;
  mutable std::mutex mutex_;
  std::set<Missing> missing_;
  std::set<std::string> answered_;
};

}  // namespace ucudnn::cli
