#include "db/layered_store.h"

namespace ucudnn {

std::optional<MeasurementRecord> LayeredStore::find_measurement(const std::string& fingerprint,
                                                                const KernelKey& micro_kernel,
                                                                const std::string& backend,
                                                                const std::string& algorithm) {
  if (user_)
    if (auto found = user_->find_measurement(fingerprint, micro_kernel, backend, algorithm))
      return found;
  if (system_) return system_->find_measurement(fingerprint, micro_kernel, backend, algorithm);
  return std::nullopt;
}

void LayeredStore::put_measurements(const std::vector<MeasurementRecord>& records) {
  if (user_) user_->put_measurements(records);
}

std::optional<std::vector<Configuration>> LayeredStore::find_plan(const PlanKey& key) {
  if (user_)
    if (auto found = user_->find_plan(key)) return found;
  if (system_) return system_->find_plan(key);
  return std::nullopt;
}

void LayeredStore::put_plan(const PlanKey& key, const std::vector<Configuration>& plan,
                            const LimitRange& valid) {
  if (user_) user_->put_plan(key, plan, valid);
}

void LayeredStore::flush() {
  if (user_) user_->flush();
  if (system_) system_->flush();
}

}  // namespace ucudnn
