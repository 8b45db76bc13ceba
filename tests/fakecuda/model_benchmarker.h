#pragma once
// The doubles' cost model (cost_model.h) as a planner device: what the shim measures on the
// doubles, exactly, so that tests predict its plans with ucudnn's own planner.
#include <optional>
#include <string>
#include <vector>

#include "core/benchmarker.h"
#include "cost_model.h"

namespace ucudnn::fakecuda {

class ModelBenchmarker final : public Benchmarker {
 public:
  std::string backend_name() const override { return "cudnn"; }
  DeviceFingerprint fingerprint() const override { return {{{"kind", "model"}}}; }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    std::vector<std::string> names;
    for (int a = 0; a < algorithm_count(kernel.operation); ++a)
      names.emplace_back(algorithm_model(kernel.operation, a)->name);
    return names;
  }
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    for (int a = 0; a < algorithm_count(kernel.operation); ++a)
      if (algorithm_model(kernel.operation, a)->name == algorithm) {
        const auto modeled = model(kernel.with_batch(micro_batch), a);
        if (!modeled.supported) return std::nullopt;
        // The doubles report times through cudaEventElapsedTime, a float.
        return Measurement{static_cast<float>(modeled.time_ms), modeled.workspace_bytes};
      }
    return std::nullopt;
  }
};

}  // namespace ucudnn::fakecuda
