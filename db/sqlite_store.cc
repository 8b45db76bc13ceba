// The SQLite store as a BenchmarkStore: each call takes the store's lock, answers from the
// rows in memory and saves through the queue (sqlite_store_impl.h).
#include "db/sqlite_store_impl.h"

namespace ucudnn {

using namespace sqlite_store_detail;

// --- the store ------------------------------------------------------------------------------

SqliteStore::SqliteStore(const std::string& path, SqliteStoreOptions options)
    : impl_(std::make_unique<Impl>(path, std::move(options))) {
  try {
    impl_->open();
  } catch (const std::exception& error) {
    // Allocation failures and the like: the application goes on without a cache.
    impl_->state = StoreState::kDisabled;
    impl_->warn("cannot open " + impl_->named() + " (" + error.what() +
                "); running without a benchmark cache");
  }
  impl_->unwritable_from_open = impl_->options.access == StoreAccess::kReadWrite &&
                                impl_->state != StoreState::kReadWrite && !impl_->reopen_wanted;
}

SqliteStore::~SqliteStore() {
  try {
    std::lock_guard lock(impl_->mutex);
    impl_->flushing = true;  // the last chance: waits for a lock even after one timed out
    impl_->save();
  } catch (...) {
  }
}

const std::string& SqliteStore::path() const {
  return impl_->path;
}

StoreState SqliteStore::state() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->state;
}

bool SqliteStore::locked_at_open() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->state != StoreState::kReadWrite && impl_->reopen_wanted;
}

std::size_t SqliteStore::failed_writes() const {
  std::lock_guard lock(impl_->mutex);
  if (!impl_->last_save_failed) return 0;
  return impl_->unsaved_measurements.size() + impl_->unsaved_plans.size();
}

std::size_t SqliteStore::statements_run() const {
  return impl_->statements.load();
}

std::optional<MeasurementRecord> SqliteStore::find_measurement(const std::string& fingerprint,
                                                               const KernelKey& micro_kernel,
                                                               const std::string& backend,
                                                               const std::string& algorithm) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  try {
    const DeviceRows& rows = impl.device(fingerprint);
    const auto found =
        rows.measurements.find(measurement_slot(micro_kernel.to_string(), backend, algorithm));
    if (found == rows.measurements.end()) return std::nullopt;
    return MeasurementRecord{fingerprint,
                             micro_kernel,
                             backend,
                             algorithm,
                             found->second.measurement,
                             found->second.measured_at};
  } catch (const std::exception&) {
    return std::nullopt;  // memory exhausted: an uncached lookup
  }
}

std::vector<std::string> SqliteStore::measured_algorithms(
    const std::string& fingerprint, const std::string& backend,
    const std::set<std::string>& micro_kernels) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  std::set<std::string> found;
  try {
    // A slot is kernel, backend and algorithm, separated by \x1f (measurement_slot).
    for (const auto& [slot, cached] : impl.device(fingerprint).measurements) {
      const auto first = slot.find('\x1f');
      const auto second = slot.find('\x1f', first + 1);
      if (first == std::string::npos || second == std::string::npos) continue;
      if (std::string_view(slot).substr(first + 1, second - first - 1) == backend &&
          micro_kernels.contains(slot.substr(0, first)))
        found.insert(slot.substr(second + 1));
    }
  } catch (const std::exception&) {
    return {};  // memory exhausted: nothing known
  }
  return {found.begin(), found.end()};
}

void SqliteStore::put_measurements(const std::vector<MeasurementRecord>& records) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  try {
    const std::int64_t now = sqlite::unix_now();
    for (const auto& record : records) {
      auto row = db::to_row(record, now);
      if (db::row_error(row)) continue;
      impl.device(row.fingerprint);  // so that loading it later does not hide this row
      impl.remember(row);
      if (impl.saves()) impl.unsaved_measurements.push_back(std::move(row));
    }
    if (!impl.held()) impl.save();
  } catch (const std::exception& error) {
    impl.keep_unsaved(error.what());
  }
}

std::optional<std::vector<Configuration>> SqliteStore::find_plan(const PlanKey& key) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  try {
    impl.device(key.fingerprint);
    return impl.plans.find(key);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::vector<std::string> SqliteStore::plan_subjects(const PlanKey& key) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  try {
    impl.device(key.fingerprint);
    return impl.plans.subjects(key);
  } catch (const std::exception&) {
    return {};
  }
}

void SqliteStore::put_plan(const PlanKey& key, const std::vector<Configuration>& plan,
                           const LimitRange& valid) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  try {
    PlanKey stored = key;
    stored.workspace_limit = valid.from;
    db::PlanRow row{stored, plan, sqlite::unix_now(), valid.below};
    if (db::row_error(row) || !valid.contains(key.workspace_limit)) return;
    impl.device(key.fingerprint);
    impl.plans.put(key, plan, valid);
    if (impl.saves()) impl.unsaved_plans.push_back(std::move(row));
    if (!impl.held()) impl.save();
  } catch (const std::exception& error) {
    impl.keep_unsaved(error.what());
  }
}

void SqliteStore::flush() {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  // The shim flushes at every selection: once another process's lock outlasted the timeout,
  // the file is tried again without waiting (the rows wait in memory); confirm_saved, at the
  // end, waits for it once more.
  if (impl.kept_out_by_lock())
    impl.try_flush();
  else
    impl.flush();
}

void SqliteStore::hold_saves() {
  std::lock_guard lock(impl_->mutex);
  ++impl_->holds[std::this_thread::get_id()];
}

void SqliteStore::release_saves() {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  const auto mine = impl.holds.find(std::this_thread::get_id());
  if (mine != impl.holds.end() && --mine->second > 0) return;
  if (mine != impl.holds.end()) impl.holds.erase(mine);
  try {
    impl.save();
  } catch (const std::exception& error) {
    impl.keep_unsaved(error.what());
  }
}

std::vector<std::string> SqliteStore::confirm_saved() {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  return impl.confirm_saved();
}

}  // namespace ucudnn
