#include "core/memory_store.h"

namespace ucudnn {

std::optional<MeasurementRecord> MemoryStore::find_measurement(const std::string& fingerprint,
                                                               const KernelKey& micro_kernel,
                                                               const std::string& backend,
                                                               const std::string& algorithm) {
  std::lock_guard lock(mutex_);
  auto found = measurements_.find({fingerprint, micro_kernel.to_string(), backend, algorithm});
  if (found == measurements_.end()) return std::nullopt;
  return found->second;
}

std::vector<std::string> MemoryStore::measured_algorithms(
    const std::string& fingerprint, const std::string& backend,
    const std::set<std::string>& micro_kernels) {
  std::lock_guard lock(mutex_);
  std::set<std::string> found;
  for (const auto& [key, record] : measurements_)
    if (std::get<0>(key) == fingerprint && std::get<2>(key) == backend &&
        micro_kernels.contains(std::get<1>(key)))
      found.insert(std::get<3>(key));
  return {found.begin(), found.end()};
}

void MemoryStore::put_measurements(const std::vector<MeasurementRecord>& records) {
  std::lock_guard lock(mutex_);
  for (const auto& record : records)
    measurements_.insert_or_assign(
        {record.fingerprint, record.kernel.to_string(), record.backend, record.algorithm}, record);
}

std::optional<std::vector<Configuration>> MemoryStore::find_plan(const PlanKey& key) {
  std::lock_guard lock(mutex_);
  return plans_.find(key);
}

void MemoryStore::put_plan(const PlanKey& key, const std::vector<Configuration>& plan,
                           const LimitRange& valid) {
  std::lock_guard lock(mutex_);
  plans_.put(key, plan, valid);
}

std::vector<std::string> MemoryStore::plan_subjects(const PlanKey& key) {
  std::lock_guard lock(mutex_);
  return plans_.subjects(key);
}

}  // namespace ucudnn
