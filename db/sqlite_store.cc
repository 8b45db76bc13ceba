// The SQLite store's behaviour over time: opening (with leases and retries), the in-memory
// rows of the current device, the queue of unsaved writes and when it is retried, and the
// recovery from a damaged or moved file. Long because these states interlock (a write that
// fails may move the store from read-write to disabled and back); the pieces without state
// live beside it (database_file, file_lease, row_reader, row_writer, schema).
#include "db/sqlite_store.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <iterator>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/plan_shelf.h"
#include "db/database_file.h"
#include "db/file_lease.h"
#include "db/row_reader.h"
#include "db/row_writer.h"

namespace ucudnn {

namespace {

namespace fs = std::filesystem;

std::string folder_of(const std::string& path) {
  auto folder = fs::path(path).parent_path();
  return folder.empty() ? std::string(".") : folder.string();
}

// access(2) for W_OK: only a refusal counts. A file renamed away by another process at this
// moment (ENOENT) is not "read-only": opening it again creates or finds the fresh one.
bool refused_writing(const std::string& path, int mode) {
  return ::access(path.c_str(), mode) != 0 && (errno == EACCES || errno == EROFS || errno == EPERM);
}

// Past this, the oldest unsaved rows are dropped: a store that cannot write for a whole job
// must not grow without bound.
constexpr std::size_t kMaxUnsavedRows = 100'000;

std::string measurement_slot(const std::string& kernel, const std::string& backend,
                             const std::string& algorithm) {
  std::string slot;
  slot.reserve(kernel.size() + backend.size() + algorithm.size() + 2);
  slot.append(kernel).push_back('\x1f');
  slot.append(backend).push_back('\x1f');
  slot.append(algorithm);
  return slot;
}

struct CachedMeasurement {
  std::optional<Measurement> measurement;
  std::int64_t measured_at = 0;
};

// One device's rows in memory.
struct DeviceRows {
  bool loaded = false;
  bool blocked = false;  // its rows were locked: read them at the next flush()
  std::unordered_map<std::string, CachedMeasurement> measurements;
};

}  // namespace

struct SqliteStore::Impl {
  Impl(std::string path, SqliteStoreOptions options)
      : path(std::move(path)), options(std::move(options)) {}

  // The file: opening, and opening again after it was locked, moved or damaged.
  void open();
  void open_read_write();
  void open_read_only(db::Access access);
  bool adopt(db::OpenedDatabase database, StoreState new_state);
  enum class Replaced { kAdopted, kSetAside, kInUse, kGaveUp };
  Replaced replace_damaged(const std::string& why);
  // After damage seen in use: the file set aside and a fresh one opened. True when writable.
  bool recover_from_damage(const std::string& why);
  db::OpenOptions open_options(bool check_integrity = false) const {
    return {sqlite::LockWait{options.lock_timeout, options.notice_after, options.notice},
            check_integrity};
  }
  // Writes are kept for the file: it is writable, or will be once another process's lock
  // at open is gone.
  bool saves() const { return state == StoreState::kReadWrite || reopen_wanted; }
  int write_attempts() const { return options.lock_timeout >= std::chrono::seconds(1) ? 3 : 1; }

  // Rows in memory.
  DeviceRows& device(const std::string& fingerprint);
  void load(const std::string& fingerprint, DeviceRows& rows);
  void remember(const db::MeasurementRow& row);
  void remove_garbage(const std::vector<std::int64_t>& ids);

  // Rows to the file.
  void save();
  void write_unsaved();
  void keep_unsaved(const std::string& why);

  void warn(const std::string& message) {
    if (options.warn) options.warn(message);
  }
  // Said once per kind, then silent: a training job must not drown in repeats.
  void warn_once(bool& said, const std::string& message) {
    if (said) return;
    said = true;
    warn(message);
  }
  std::string named() const { return options.role + " " + path; }

  const std::string path;
  const SqliteStoreOptions options;
  mutable std::mutex mutex;
  StoreState state = StoreState::kDisabled;
  bool reopen_wanted = false;  // locked at open: open again at the next flush()
  // Declared in the order they are given up: the writer, the connection, the lease.
  std::optional<db::FileLease> lease;
  sqlite::Connection connection;
  std::optional<db::RowWriter> writer;
  std::atomic<std::size_t> statements{0};

  std::unordered_map<std::string, DeviceRows> devices;
  PlanShelf plans;
  std::vector<db::MeasurementRow> unsaved_measurements;
  std::vector<db::PlanRow> unsaved_plans;
  // What this process has saved: written again when the file is replaced under it.
  std::vector<db::MeasurementRow> saved_measurements;
  std::vector<db::PlanRow> saved_plans;
  bool last_save_failed = false;

  bool said_locked = false, said_unsaved = false, said_garbage = false, said_lookup = false,
       said_dropped = false, said_in_use = false;

  void close() {
    writer.reset();
    connection = sqlite::Connection();
    lease.reset();
    state = StoreState::kDisabled;
  }
  // After the file was replaced (set aside, renamed away): what this process saved into the
  // old one goes into the new one.
  void save_again() {
    unsaved_measurements.insert(unsaved_measurements.begin(), saved_measurements.begin(),
                                saved_measurements.end());
    unsaved_plans.insert(unsaved_plans.begin(), saved_plans.begin(), saved_plans.end());
    saved_measurements.clear();
    saved_plans.clear();
  }
};

// --- the file -------------------------------------------------------------------------------

bool SqliteStore::Impl::adopt(db::OpenedDatabase database, StoreState new_state) {
  try {
    close();
    lease = std::move(database.lease);
    connection = std::move(database.connection);
    sqlite3_trace_v2(
        connection.get(), SQLITE_TRACE_STMT,
        [](unsigned, void* counter, void*, void*) {
          ++*static_cast<std::atomic<std::size_t>*>(counter);
          return 0;
        },
        &statements);
    if (new_state == StoreState::kReadWrite) writer.emplace(connection);
    state = new_state;
    reopen_wanted = false;
    return true;
  } catch (const std::exception& error) {
    close();
    warn("cannot use " + named() + " (" + error.what() + "); running without a benchmark cache");
    return false;
  }
}

void SqliteStore::Impl::open_read_only(db::Access access) {
  auto outcome = db::open_database(path, access, open_options());
  if (outcome.database) {
    const bool newer = outcome.database->newer_schema;
    const int version = outcome.database->schema_version;
    if (adopt(std::move(*outcome.database), StoreState::kReadOnly) && newer)
      warn(named() + " was written by a newer ucudnn (schema version " + std::to_string(version) +
           "): its results are used, new ones are not saved");
    return;
  }
  std::error_code error;
  if (!fs::exists(path, error))
    warn(named() + " does not exist: nothing is read from it");
  else
    warn(named() + " is not used: " + outcome.failure->message);
}

void SqliteStore::Impl::open_read_write() {
  const std::string folder = folder_of(path);
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    warn("cannot create the folder " + folder + " for the " + named() + " (" + error.message() +
         "); running without a benchmark cache");
    return;
  }
  const bool exists = fs::exists(path, error);
  if (refused_writing(folder, W_OK | X_OK)) {
    if (exists) {
      open_read_only(db::Access::kReadOnly);
      if (state == StoreState::kReadOnly)
        warn(named() +
             " is read-only (its folder is not writable): stored results are used, "
             "new ones are not saved");
      return;
    }
    warn("the folder " + folder + " of the " + named() +
         " is not writable; running without a benchmark cache");
    return;
  }
  if (exists && refused_writing(path, W_OK)) {
    open_read_only(db::Access::kReadOnly);
    if (state == StoreState::kReadOnly)
      warn(named() +
           " is read-only (the file is not writable): stored results are used, new ones are "
           "not saved");
    return;
  }

  // Until a damaged file is replaced by a working one: others may be setting it aside at
  // this moment, or still have it open (then it must wait).
  const auto start = std::chrono::steady_clock::now();
  bool noticed = false;
  for (int round = 0;; ++round) {
    if (round == 100) {
      warn(named() + " could not be replaced by a working one; running without a benchmark cache");
      return;
    }
    auto outcome = db::open_database(path, db::Access::kReadWrite, open_options());
    if (outcome.database) {
      adopt(std::move(*outcome.database), StoreState::kReadWrite);
      return;
    }
    const auto& failure = *outcome.failure;
    if (failure.busy) {
      reopen_wanted = true;
      warn_once(said_locked, named() + " is locked by another process (" + failure.message +
                                 "); running uncached until it is free");
      return;
    }
    if (failure.problem == db::FileProblem::kNewerSchema) {
      // Never migrated down, never renamed: read it if its tables can be read.
      auto read = db::open_database(path, db::Access::kReadOnly, open_options());
      if (read.database) {
        if (adopt(std::move(*read.database), StoreState::kReadOnly))
          warn(named() + " was " + failure.message +
               ": its results are used, new ones are not saved");
      } else {
        warn(named() + " was " + failure.message + " and cannot be read (" + read.failure->message +
             "); running without a benchmark cache");
      }
      return;
    }
    if (failure.problem == db::FileProblem::kForeign) {
      warn(named() + " is " + failure.message +
           "; it is left as it is, and ucudnn runs without a benchmark cache (set "
           "UCUDNN_DATABASE to another file)");
      return;
    }
    if (!db::replaceable(failure.problem)) {
      warn("cannot open " + named() + " (" + failure.message +
           "); running without a benchmark cache");
      return;
    }
    const auto replaced = replace_damaged(failure.message);
    if (replaced == Replaced::kAdopted || replaced == Replaced::kGaveUp) return;
    if (replaced == Replaced::kSetAside) continue;
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited >= options.lock_timeout) {
      reopen_wanted = true;
      warn_once(said_in_use, named() + " is unusable (" + failure.message +
                                 ") but other processes still have it open; running uncached "
                                 "until it can be replaced");
      return;
    }
    if (!noticed && options.notice && waited >= options.notice_after) {
      noticed = true;
      options.notice("waiting for " + path + ": it is unusable (" + failure.message +
                     ") and other processes still have it open");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(round < 10 ? 2 : 20));
  }
}

// Several processes may find the same bad file at once, and others may have it open. It is
// set aside only under the exclusive lease, which no one else holds a shared lease beside;
// there it is inspected again, integrity included: another process may have set it aside
// and started afresh already. The fresh file is made before the lease is shared again, so
// that whoever waits finds it ready.
SqliteStore::Impl::Replaced SqliteStore::Impl::replace_damaged(const std::string& why) {
  close();
  bool unavailable = false;
  auto exclusive = db::FileLease::acquire(path, db::FileLease::Mode::kExclusive,
                                          std::chrono::milliseconds(0), &unavailable);
  if (!exclusive) {
    if (!unavailable) return Replaced::kInUse;
    warn(named() + " is unusable (" + why +
         ") and cannot be locked to replace it; running without a benchmark cache");
    return Replaced::kGaveUp;
  }
  auto take = [&](db::OpenOutcome& outcome) {
    exclusive->downgrade();
    outcome.database->lease = std::move(exclusive);
    return adopt(std::move(*outcome.database), StoreState::kReadWrite) ? Replaced::kAdopted
                                                                       : Replaced::kGaveUp;
  };
  auto outcome = db::open_database(path, db::Access::kReadWrite, open_options(true), &*exclusive);
  if (outcome.database) return take(outcome);
  const auto& failure = *outcome.failure;
  if (failure.busy) {
    reopen_wanted = true;
    return Replaced::kGaveUp;
  }
  // Something else now (another process made it foreign?): the next open says what.
  if (!db::replaceable(failure.problem)) return Replaced::kSetAside;
  auto aside = db::set_aside(path, db::name_of(failure.problem));
  if (!aside) {
    warn(named() + " is unusable (" + failure.message + ") and " + aside.error() +
         "; running without a benchmark cache");
    return Replaced::kGaveUp;
  }
  warn(named() + " was unusable (" + failure.message + "); moved it to " + *aside +
       " and started a new one");
  save_again();
  auto fresh = db::open_database(path, db::Access::kReadWrite, open_options(), &*exclusive);
  if (fresh.database) return take(fresh);
  return Replaced::kSetAside;
}

bool SqliteStore::Impl::recover_from_damage(const std::string& why) {
  switch (replace_damaged(why)) {
    case Replaced::kAdopted:
      break;
    case Replaced::kSetAside:
      open_read_write();
      break;
    case Replaced::kInUse:
      reopen_wanted = true;
      warn_once(said_in_use, named() + " is damaged (" + why +
                                 ") but other processes still have it open; running uncached "
                                 "until it can be replaced");
      break;
    case Replaced::kGaveUp:
      break;
  }
  return state == StoreState::kReadWrite;
}

void SqliteStore::Impl::open() {
  switch (options.access) {
    case StoreAccess::kReadWrite:
      return open_read_write();
    case StoreAccess::kReadOnly:
      return open_read_only(db::Access::kReadOnly);
    case StoreAccess::kShared:
      return open_read_only(db::Access::kShared);
  }
}

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
  // What this process saved meanwhile (rows it wrote while the file was locked) is newer.
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
        warn_once(said_locked, named() + " is locked by another process (" + error.what() +
                                   "); running uncached until it is free");
        return rows;
      }
      if (error.damaged() && state == StoreState::kReadWrite && attempt == 0 &&
          recover_from_damage(error.what()))
        continue;
      warn_once(said_lookup, named() + ": reading stored results failed (" + error.what() +
                                 "); running uncached");
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
  warn_once(said_unsaved, named() + ": " + std::to_string(rows) + " results could not be saved (" +
                              why +
                              "); they are kept in memory and saved later (at the next "
                              "planning and when the process ends)");
  if (unsaved_measurements.size() > kMaxUnsavedRows) {
    unsaved_measurements.erase(
        unsaved_measurements.begin(),
        unsaved_measurements.begin() +
            static_cast<std::ptrdiff_t>(unsaved_measurements.size() - kMaxUnsavedRows));
    warn_once(said_dropped, named() + ": more than " + std::to_string(kMaxUnsavedRows) +
                                " unsaved results; the oldest are dropped");
  }
}

void SqliteStore::Impl::save() {
  if (state != StoreState::kReadWrite || (unsaved_measurements.empty() && unsaved_plans.empty()))
    return;
  for (int attempt = 0;; ++attempt) {
    try {
      write_unsaved();
      return;
    } catch (const sqlite::Error& error) {
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
}

SqliteStore::~SqliteStore() {
  try {
    std::lock_guard lock(impl_->mutex);
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
    impl.save();
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
    impl.save();
  } catch (const std::exception& error) {
    impl.keep_unsaved(error.what());
  }
}

void SqliteStore::flush() {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  try {
    if (impl.reopen_wanted && impl.options.access == StoreAccess::kReadWrite) {
      impl.reopen_wanted = false;
      impl.open_read_write();
    }
    for (auto& [fingerprint, rows] : impl.devices)
      if (rows.blocked) {
        rows.blocked = false;
        impl.device(fingerprint);
      }
    impl.save();
  } catch (const std::exception& error) {
    impl.keep_unsaved(error.what());
  }
}

}  // namespace ucudnn
