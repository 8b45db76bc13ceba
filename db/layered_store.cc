#include "db/layered_store.h"

#include <algorithm>

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

std::vector<std::string> LayeredStore::measured_algorithms(
    const std::string& fingerprint, const std::string& backend,
    const std::set<std::string>& micro_kernels) {
  std::set<std::string> found;
  for (BenchmarkStore* store : {user_.get(), system_.get()})
    if (store)
      for (auto& name : store->measured_algorithms(fingerprint, backend, micro_kernels))
        found.insert(std::move(name));
  return {found.begin(), found.end()};
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

std::vector<std::string> LayeredStore::plan_subjects(const PlanKey& key) {
  std::vector<std::string> subjects =
      user_ ? user_->plan_subjects(key) : std::vector<std::string>{};
  if (system_) {
    auto more = system_->plan_subjects(key);
    subjects.insert(subjects.end(), more.begin(), more.end());
    std::sort(subjects.begin(), subjects.end());
    subjects.erase(std::unique(subjects.begin(), subjects.end()), subjects.end());
  }
  return subjects;
}

std::vector<std::string> LayeredStore::confirm_saved() {
  return user_ ? user_->confirm_saved() : std::vector<std::string>{};
}

void LayeredStore::hold_saves() {
  if (user_) user_->hold_saves();
}

void LayeredStore::release_saves() {
  if (user_) user_->release_saves();
}

void LayeredStore::flush() {
  if (user_) user_->flush();
  if (system_) system_->flush();
}

}  // namespace ucudnn
