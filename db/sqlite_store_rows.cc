// The SQLite store's rows: the current device's in memory, read from the file once, and the
// queue of unsaved writes, when it is retried and when rows are dropped (sqlite_store_impl.h).
#include <algorithm>
#include <iterator>

#include "core/text.h"
#include "db/sqlite_store_impl.h"

namespace ucudnn {

using namespace sqlite_store_detail;

// --- rows in memory -------------------------------------------------------------------------

void SqliteStore::Impl::remember(const db::MeasurementRow& row) {
  auto& slot = devices[row.fingerprint]
                   .measurements[measurement_slot(row.kernel_key, row.backend, row.algorithm)];
  // The file's rule: the later measurement stays; on equal times, the one written last.
  if (slot.measured_at <= row.measured_at) slot = {row.measurement, row.measured_at};
}

void SqliteStore::Impl::remove_garbage(const std::vector<std::int64_t>& ids) {
  // Looked up again inside the write lock: another process may have replaced a garbage row
  // with a good one meanwhile. Without this, a garbage row whose timestamp claims to be
  // newer than any new measurement would stay forever.
  sqlite::write_transaction(
      connection,
      [&] {
        for (auto id : ids)
          if (auto row = db::measurement_by_id(connection, id); row && !*row)
            writer->remove_measurement(id);
      },
      write_attempts());
}

void SqliteStore::Impl::load(const std::string& fingerprint, DeviceRows& rows) {
  std::vector<std::int64_t> garbage;
  std::string garbage_reason;
  std::vector<db::MeasurementRow> measurements;
  std::vector<db::PlanRow> plan_rows;
  sqlite::read_transaction(connection, [&] {
    db::for_each_measurement_of(connection, fingerprint,
                                [&](std::int64_t id, Expected<db::MeasurementRow> row) {
                                  if (row) {
                                    measurements.push_back(std::move(row).value());
                                  } else {
                                    garbage.push_back(id);
                                    garbage_reason = row.error();
                                  }
                                });
    db::for_each_plan_of(connection, fingerprint, [&](std::int64_t, Expected<db::PlanRow> row) {
      if (row)
        plan_rows.push_back(std::move(row).value());
      else
        garbage_reason = row.error();
    });
  });
  for (const auto& row : measurements) remember(row);
  // What this process saved meanwhile (rows it wrote while the file was locked) is newer; of
  // the file's rows whose ranges overlap (written before newer ones took older ones away), the
  // newest.
  std::stable_sort(plan_rows.begin(), plan_rows.end(),
                   [](const auto& a, const auto& b) { return a.created_at > b.created_at; });
  for (auto& row : plan_rows) plans.put_if_absent(row.key, row.configurations, row.limits());
  rows.loaded = true;
  if (!garbage_reason.empty())
    warn_once(said_garbage,
              named() + " has unreadable rows (" + garbage_reason + "); ignoring them");
  if (!garbage.empty() && state == StoreState::kReadWrite) remove_garbage(garbage);
}

DeviceRows& SqliteStore::Impl::device(const std::string& fingerprint) {
  DeviceRows& rows = devices[fingerprint];
  if (rows.loaded || rows.blocked || !connection) return rows;
  for (int attempt = 0; attempt < 2; ++attempt) {
    try {
      load(fingerprint, rows);
      return rows;
    } catch (const sqlite::Error& error) {
      if (error.busy()) {
        rows.blocked = true;
        warn_once(said_locked, locked_warning(error.what()));
        return rows;
      }
      if (error.damaged() && state == StoreState::kReadWrite && attempt == 0 &&
          recover_from_damage(error.what()))
        continue;
      // Read-only here (a writer sets a damaged file aside): say where the rest of it is.
      const std::string rescue =
          error.damaged() ? "; `ucudnn db check --database " + shell_word(path) +
                                "` names the damage and the merge that copies the rows it "
                                "still holds into a new database"
                          : "";
      warn_once(said_lookup, named() + ": reading stored results failed (" + error.what() +
                                 "); running uncached" + rescue);
    } catch (const std::exception& error) {
      warn_once(said_lookup, named() + ": reading stored results failed (" + error.what() +
                                 "); running uncached");
    }
    break;
  }
  rows.loaded = true;  // not again: every lookup would pay for the failure
  return rows;
}

// --- rows to the file -----------------------------------------------------------------------

void SqliteStore::Impl::write_unsaved() {
  sqlite::write_transaction(
      connection,
      [&] {
        for (const auto& row : unsaved_measurements) writer->put(row, db::Conflict::kNewerOrEqual);
        for (const auto& row : unsaved_plans) writer->put(row, db::Conflict::kReplace);
      },
      write_attempts());
  auto keep = [](auto& saved, auto& unsaved) {
    saved.insert(saved.end(), std::make_move_iterator(unsaved.begin()),
                 std::make_move_iterator(unsaved.end()));
    unsaved.clear();
    if (saved.size() > kMaxUnsavedRows)
      saved.erase(saved.begin(),
                  saved.begin() + static_cast<std::ptrdiff_t>(saved.size() - kMaxUnsavedRows));
  };
  keep(saved_measurements, unsaved_measurements);
  keep(saved_plans, unsaved_plans);
  last_save_failed = false;
}

void SqliteStore::Impl::keep_unsaved(const std::string& why) {
  last_save_failed = true;
  const std::size_t rows = unsaved_measurements.size() + unsaved_plans.size();
  warn_once(said_unsaved, named() + ": " + counted(rows, "result") + " could not be saved (" + why +
                              "); they are kept in memory and saved later (at the next "
                              "planning and when the process ends)");
  drop_oldest_unsaved();
}

void SqliteStore::Impl::drop_oldest_unsaved() {
  if (unsaved_measurements.size() <= kMaxUnsavedRows) return;
  unsaved_measurements.erase(
      unsaved_measurements.begin(),
      unsaved_measurements.begin() +
          static_cast<std::ptrdiff_t>(unsaved_measurements.size() - kMaxUnsavedRows));
  warn_once(said_dropped, named() + ": more than " + std::to_string(kMaxUnsavedRows) +
                              " unsaved results; the oldest are dropped");
}

void SqliteStore::Impl::save() {
  if (unsaved_measurements.empty() && unsaved_plans.empty()) return;
  if (state != StoreState::kReadWrite) {
    drop_oldest_unsaved();  // kept for confirm_saved() to report, within bounds
    return;
  }
  // A file another process keeps locked is not waited for at every put: a bench that stores
  // each item would otherwise wait the whole timeout per item.
  const auto timeout = connection.lock_timeout();
  const bool without_waiting = lock_busy && !flushing;
  if (without_waiting) connection.set_lock_timeout(std::chrono::milliseconds(0));
  struct Restore {
    Impl& impl;
    std::chrono::milliseconds timeout;
    ~Restore() { impl.connection.set_lock_timeout(timeout); }
  } restore{*this, timeout};
  for (int attempt = 0;; ++attempt) {
    try {
      write_unsaved();
      lock_busy = false;
      return;
    } catch (const sqlite::Error& error) {
      if (error.busy()) lock_busy = true;
      if (attempt == 0 && error.moved()) {
        // Renamed away under us: the rows belong in the file now at `path`.
        close();
        save_again();
        open_read_write();
        if (state == StoreState::kReadWrite) continue;
      } else if (attempt == 0 && error.damaged() && recover_from_damage(error.what())) {
        continue;
      }
      keep_unsaved(error.what());
      return;
    } catch (const std::exception& error) {
      keep_unsaved(error.what());
      return;
    }
  }
}

}  // namespace ucudnn
