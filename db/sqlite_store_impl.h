#pragma once
// The SQLite store's state, shared by the files that implement it (private to db/):
// sqlite_store_file.cc opens the file and recovers it from damage, sqlite_store_rows.cc keeps
// the rows in memory and saves them, sqlite_store.cc is the BenchmarkStore interface. Long-lived
// states interlock (a write that fails may move the store from read-write to disabled and
// back); the pieces without state live beside it (database_file, file_lease, row_reader,
// row_writer, schema).
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unordered_map>

#include <unistd.h>

#include "core/plan_shelf.h"
#include "db/database_file.h"
#include "db/file_lease.h"
#include "db/row_reader.h"
#include "db/row_writer.h"
#include "db/sqlite_store.h"

namespace ucudnn {

namespace sqlite_store_detail {

namespace fs = std::filesystem;

inline std::string folder_of(const std::string& path) {
  auto folder = fs::path(path).parent_path();
  return folder.empty() ? std::string(".") : folder.string();
}

// access(2) for W_OK: only a refusal counts. A file renamed away by another process at this
// moment (ENOENT) is not "read-only": opening it again creates or finds the fresh one.
inline bool refused_writing(const std::string& path, int mode) {
  return ::access(path.c_str(), mode) != 0 && (errno == EACCES || errno == EROFS || errno == EPERM);
}

// Past this, the oldest unsaved rows are dropped: a store that cannot write for a whole job
// must not grow without bound.
inline constexpr std::size_t kMaxUnsavedRows = 100'000;

inline std::string measurement_slot(const std::string& kernel, const std::string& backend,
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

}  // namespace sqlite_store_detail

struct SqliteStore::Impl {
  using DeviceRows = sqlite_store_detail::DeviceRows;

  Impl(std::string path, SqliteStoreOptions options)
      : path(std::move(path)), options(std::move(options)) {}

  // The file: opening, and opening again after it was locked, moved or damaged.
  void open();
  void open_read_write();
  void open_read_only(db::Access access);
  bool adopt(db::OpenedDatabase database, StoreState new_state);
  // kUsersFile: no database, where none has been (db::users_file, FileLease): left alone.
  enum class Replaced { kAdopted, kSetAside, kInUse, kGaveUp, kUsersFile };
  void warn_users_file(const std::string& why);
  // The rows of a damaged file set aside, copied into the fresh one: the warning's words for it.
  std::string copy_back(const std::string& aside, sqlite::Connection& fresh);
  std::string merge_advice(const std::string& aside) const;  // where copying failed
  Replaced replace_damaged(const std::string& why);
  // After damage seen in use: the file set aside and a fresh one opened. True when writable.
  bool recover_from_damage(const std::string& why);
  db::OpenOptions open_options(bool check_integrity = false) const {
    return {sqlite::LockWait{lock_timeout(), options.notice_after, options.notice},
            check_integrity};
  }
  // How long an operation waits for another process's lock now (none while only trying).
  std::chrono::milliseconds lock_timeout() const {
    return trying_only ? std::chrono::milliseconds(0) : options.lock_timeout;
  }
  // Writes are kept for the file whenever the store is meant to write: saved when it is
  // writable (now, or once another process's lock is gone), else reported by confirm_saved().
  // A file that could not be written from the open on, and will not be tried again (no lock to
  // wait out), said so then ("running without a benchmark cache", "new ones are not saved"):
  // its rows are not kept, or the exit would say the same again as rows "not saved".
  bool saves() const { return options.access == StoreAccess::kReadWrite && !unwritable_from_open; }
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
  void drop_oldest_unsaved();
  // Reopens a file that was locked, reads devices whose rows were locked, saves.
  void flush();
  // The same without waiting for any lock: what is still locked stays as it is.
  void try_flush();
  // Something the file's lock kept out: a reopen, a device's rows, a save.
  bool kept_out_by_lock() const;

  // Rows this process saved that the file now at `path` lacks (read through a connection of
  // its own); all of them when the file cannot be read.
  struct Missing {
    std::vector<db::MeasurementRow> measurements;
    std::vector<db::PlanRow> plans;
    bool empty() const { return measurements.empty() && plans.empty(); }
  };
  Missing missing_from_file();
  std::vector<std::string> confirm_saved();

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
  // The warning where another process's lock outlasted the wait: how long, and which setting
  // sets it (the shim waits 100 ms by default, too short beside a long writer).
  std::string locked_warning(const std::string& why) const;

  const std::string path;
  const SqliteStoreOptions options;
  mutable std::mutex mutex;
  StoreState state = StoreState::kDisabled;
  bool reopen_wanted = false;  // locked at open: open again at the next flush()
  bool unwritable_from_open = false;
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
  // The last save found the file locked through the whole lock timeout: later saves try
  // without waiting (their rows wait in memory) until one succeeds, and only flush() waits.
  bool lock_busy = false;
  bool flushing = false;
  bool trying_only = false;  // in try_flush()
  // Each thread's hold_saves() not yet released: its puts wait for its last release. Per
  // thread, so that one thread's planning never delays what another saves.
  std::unordered_map<std::thread::id, int> holds;
  bool held() const { return holds.count(std::this_thread::get_id()) > 0; }

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

}  // namespace ucudnn
