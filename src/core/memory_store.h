#pragma once
// A BenchmarkStore in process memory: the default when no database is configured, and the
// reference behaviour the SQLite store is tested against.
#include <map>
#include <mutex>
#include <tuple>

#include "core/benchmark_store.h"

namespace ucudnn {

class MemoryStore final : public BenchmarkStore {
 public:
  std::optional<MeasurementRecord> find_measurement(const std::string& fingerprint,
                                                    const KernelKey& micro_kernel,
                                                    const std::string& backend,
                                                    const std::string& algorithm) override;
  void put_measurements(const std::vector<MeasurementRecord>& records) override;
  std::optional<std::vector<Configuration>> find_plan(const PlanKey& key) override;
  void put_plan(const PlanKey& key, const std::vector<Configuration>& plan) override;

 private:
  using MeasurementKey = std::tuple<std::string, std::string, std::string, std::string>;
  using PlanIndex = std::tuple<std::string, std::string, std::string, std::uint64_t, std::string>;
  std::mutex mutex_;
  std::map<MeasurementKey, MeasurementRecord> measurements_;
  std::map<PlanIndex, std::vector<Configuration>> plans_;
};

}  // namespace ucudnn
