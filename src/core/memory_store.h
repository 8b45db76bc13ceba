#pragma once
// A BenchmarkStore in process memory: the default when no database is configured, and the
// reference behaviour the SQLite store is tested against.
#include <map>
#include <mutex>
#include <tuple>

#include "core/benchmark_store.h"
#include "core/plan_shelf.h"

namespace ucudnn {

class MemoryStore final : public BenchmarkStore {
 public:
  std::optional<MeasurementRecord> find_measurement(const std::string& fingerprint,
                                                    const KernelKey& micro_kernel,
                                                    const std::string& backend,
                                                    const std::string& algorithm) override;
  std::vector<std::string> measured_algorithms(const std::string& fingerprint,
                                               const std::string& backend,
                                               const std::set<std::string>& micro_kernels) override;
  void put_measurements(const std::vector<MeasurementRecord>& records) override;
  std::optional<std::vector<Configuration>> find_plan(const PlanKey& key) override;
  void put_plan(const PlanKey& key, const std::vector<Configuration>& plan,
                const LimitRange& valid) override;
  using BenchmarkStore::put_plan;
  std::vector<std::string> plan_subjects(const PlanKey& key) override;

 private:
  using MeasurementKey = std::tuple<std::string, std::string, std::string, std::string>;
  std::mutex mutex_;
  std::map<MeasurementKey, MeasurementRecord> measurements_;
  PlanShelf plans_;
};

}  // namespace ucudnn
