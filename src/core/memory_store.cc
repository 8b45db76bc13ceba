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
