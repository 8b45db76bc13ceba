#pragma once
// The doubles' cost model (cost_model.h) as a planner device: what the shim measures on the
// doubles, exactly, so that tests predict its plans with ucudnn's own planner. Its candidates
// are the double's engine configurations in the order its heuristics give them (modes A, B and
// the fallback list, each once), as the shim's are; or the legacy algorithms, as under
// UCUDNN_CANDIDATES=algorithms.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/benchmarker.h"
#include "core/engine_name.h"
#include "cost_model.h"

namespace ucudnn::fakecuda {

class ModelBenchmarker final : public Benchmarker {
 public:
  enum class Candidates { kEngines, kAlgorithms };
  explicit ModelBenchmarker(Candidates candidates = Candidates::kEngines)
      : candidates_(candidates) {}

  std::string backend_name() const override { return "cudnn"; }
  DeviceFingerprint fingerprint() const override { return {{{"kind", "model"}}}; }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    std::vector<std::string> names;
    if (candidates_ == Candidates::kAlgorithms) {
      for (int a = 0; a < algorithm_count(kernel.operation); ++a)
        names.emplace_back(algorithm_model(kernel.operation, a)->name);
      return names;
    }
    std::set<std::string> seen;
    for (const bool every_split : {false, true}) {  // mode A, then mode B
      std::vector<std::pair<double, std::string>> ranked;
      for (int a = 0; a < algorithm_count(kernel.operation); ++a)
        for (const std::int64_t split : kSplits) {
          if (split != 1 && !every_split) continue;
          const Modeled m = model_engine(kernel, a, split);
          if (m.supported)
            ranked.emplace_back(m.time_ms, engine_configuration_name(kernel.operation, a, split));
        }
      std::stable_sort(ranked.begin(), ranked.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      for (auto& [time, name] : ranked)
        if (seen.insert(name).second) names.push_back(std::move(name));
    }
    return names;  // the fallback list (engine 0) adds nothing new
  }
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    if (const auto engine = EngineName::parse(algorithm)) {
      const std::int64_t split = split_of(*engine);
      return measured(
          model_engine(kernel.with_batch(micro_batch), static_cast<int>(engine->engine), split));
    }
    for (int a = 0; a < algorithm_count(kernel.operation); ++a)
      if (algorithm_model(kernel.operation, a)->name == algorithm)
        return measured(model(kernel.with_batch(micro_batch), a));
    return std::nullopt;
  }

 private:
  static std::optional<Measurement> measured(const Modeled& modeled) {
    if (!modeled.supported) return std::nullopt;
    // The doubles report times through cudaEventElapsedTime, a float.
    return Measurement{static_cast<float>(modeled.time_ms), modeled.workspace_bytes};
  }
  Candidates candidates_;
};

// The legacy algorithm an engine configuration of the double runs ("FFT" for "eng4" of a
// forward convolution): what the double's `conv` trace lines name.
inline std::string algorithm_of(Operation operation, const std::string& name) {
  const auto engine = EngineName::parse(name);
  if (!engine) return name;
  const AlgorithmModel* a = algorithm_model(operation, static_cast<int>(engine->engine));
  return a ? std::string(a->name) : name;
}

}  // namespace ucudnn::fakecuda
