// The SQLite store's promise that what it saved is in the file: flushing, then reading every
// saved row back through a connection of its own (so that it sees the file now at the path,
// not one another process set aside), writing the missing ones again once, and naming what is
// still not there (sqlite_store_impl.h).
#include <algorithm>
#include <set>
#include <unordered_map>

#include "db/sqlite_store_impl.h"

namespace ucudnn {

using namespace sqlite_store_detail;

namespace {

std::string plan_slot(const PlanKey& key) {
  return key.fingerprint + '\x1f' + key.subject + '\x1f' + key.policy + '\x1f' +
         std::to_string(key.workspace_limit) + '\x1f' + key.mode;
}

std::string saved_slot(const db::MeasurementRow& row) {
  return row.fingerprint + '\x1f' + measurement_slot(row.kernel_key, row.backend, row.algorithm) +
         '\x1f' + std::to_string(row.measured_at);
}

std::string describe(const db::MeasurementRow& row) {
  return "measurement " + row.backend + ":" + row.algorithm + " at micro-batch " +
         std::to_string(row.micro_batch) + " of kernel " + row.kernel_hash;
}

std::string describe(const db::PlanRow& row) {
  return row.key.mode + " plan (" + row.key.policy + ", from " +
         std::to_string(row.key.workspace_limit) + " bytes) of " + row.key.subject;
}

}  // namespace

void SqliteStore::Impl::flush() {
  flushing = true;
  struct Done {
    bool& flushing;
    ~Done() { flushing = false; }
  } done{flushing};
  try {
    if (reopen_wanted && options.access == StoreAccess::kReadWrite) {
      reopen_wanted = false;
      open_read_write();
    }
    for (auto& [fingerprint, rows] : devices)
      if (rows.blocked) {
        rows.blocked = false;
        device(fingerprint);
      }
    save();
  } catch (const std::exception& error) {
    keep_unsaved(error.what());
  }
}

void SqliteStore::Impl::try_flush() {
  trying_only = true;
  if (connection) connection.set_lock_timeout(std::chrono::milliseconds(0));
  struct Done {
    Impl& impl;
    ~Done() {
      impl.trying_only = false;
      if (impl.connection) impl.connection.set_lock_timeout(impl.options.lock_timeout);
    }
  } done{*this};
  flush();
}

bool SqliteStore::Impl::kept_out_by_lock() const {
  if (lock_busy || reopen_wanted) return true;
  for (const auto& [fingerprint, rows] : devices)
    if (rows.blocked) return true;
  return false;
}

SqliteStore::Impl::Missing SqliteStore::Impl::missing_from_file() {
  Missing missing;
  if (saved_measurements.empty() && saved_plans.empty()) return missing;
  auto outcome = db::open_database(path, db::Access::kReadOnly, open_options());
  if (!outcome.database) return {saved_measurements, saved_plans};
  auto& file = outcome.database->connection;
  std::set<std::string> fingerprints;
  for (const auto& row : saved_measurements) fingerprints.insert(row.fingerprint);
  for (const auto& row : saved_plans) fingerprints.insert(row.key.fingerprint);
  std::unordered_map<std::string, std::int64_t> measured_at;
  std::set<std::string> plans_found;
  try {
    sqlite::read_transaction(file, [&] {
      for (const auto& fingerprint : fingerprints) {
        db::for_each_measurement_of(
            file, fingerprint, [&](std::int64_t, Expected<db::MeasurementRow> row) {
              if (!row) return;
              auto& at =
                  measured_at[fingerprint + '\x1f' +
                              measurement_slot(row->kernel_key, row->backend, row->algorithm)];
              at = std::max(at, row->measured_at);
            });
        db::for_each_plan_of(file, fingerprint, [&](std::int64_t, Expected<db::PlanRow> row) {
          if (row) plans_found.insert(plan_slot(row->key));
        });
      }
    });
  } catch (const std::exception&) {
    return {saved_measurements, saved_plans};
  }
  // A measurement stays unless a newer one replaced it (the file's rule); a plan, whoever
  // planned that key last.
  for (const auto& row : saved_measurements) {
    const auto found = measured_at.find(
        row.fingerprint + '\x1f' + measurement_slot(row.kernel_key, row.backend, row.algorithm));
    if (found == measured_at.end() || found->second < row.measured_at)
      missing.measurements.push_back(row);
  }
  for (const auto& row : saved_plans)
    if (!plans_found.count(plan_slot(row.key))) missing.plans.push_back(row);
  return missing;
}

std::vector<std::string> SqliteStore::Impl::confirm_saved() {
  flush();
  for (int round = 0; round < 2; ++round) {
    Missing missing = missing_from_file();
    if (missing.empty()) break;
    if (round == 0)
      warn(named() + ": " + std::to_string(missing.measurements.size() + missing.plans.size()) +
           " saved results are not in the file now at that path (it was replaced meanwhile?); "
           "saving them again");
    // What is missing goes back into the queue, whatever happens next: saved now, or named.
    unsaved_measurements.insert(unsaved_measurements.end(), missing.measurements.begin(),
                                missing.measurements.end());
    unsaved_plans.insert(unsaved_plans.end(), missing.plans.begin(), missing.plans.end());
    std::set<std::string> gone;
    for (const auto& row : missing.measurements) gone.insert(saved_slot(row));
    for (const auto& row : missing.plans) gone.insert(plan_slot(row.key));
    std::erase_if(saved_measurements, [&](const auto& row) { return gone.count(saved_slot(row)); });
    std::erase_if(saved_plans, [&](const auto& row) { return gone.count(plan_slot(row.key)); });
    if (round == 0) flush();
  }
  std::vector<std::string> unsaved;
  for (const auto& row : unsaved_measurements) unsaved.push_back(describe(row));
  for (const auto& row : unsaved_plans) unsaved.push_back(describe(row));
  return unsaved;
}

}  // namespace ucudnn
