#pragma once
// A user database over a system database: a site can pre-benchmark its machines into a
// read-only file on a shared file system, and every user's own results still go to (and win
// in) their writable database. Lookups ask the user layer first; writes go to it only.
#include <memory>

#include "core/benchmark_store.h"

namespace ucudnn {

class LayeredStore final : public BenchmarkStore {
 public:
  // Either layer may be null. The system layer is never written through this store.
  LayeredStore(std::unique_ptr<BenchmarkStore> user, std::unique_ptr<BenchmarkStore> system)
      : user_(std::move(user)), system_(std::move(system)) {}

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
  void flush() override;
  void hold_saves() override;  // the user database's, where writes go
  void release_saves() override;
  std::vector<std::string> confirm_saved() override;  // the user database's

  BenchmarkStore* user() const { return user_.get(); }
  BenchmarkStore* system() const { return system_.get(); }

 private:
  std::unique_ptr<BenchmarkStore> user_;
  std::unique_ptr<BenchmarkStore> system_;
};

}  // namespace ucudnn
