#include "db/sqlite_store.h"

#include <unistd.h>

#include <filesystem>
#include <mutex>

#include "db/database_file.h"
#include "db/file_lock.h"
#include "db/row_reader.h"
#include "db/row_writer.h"

namespace ucudnn {

namespace {

std::string folder_of(const std::string& path) {
  auto folder = std::filesystem::path(path).parent_path();
  return folder.empty() ? std::string(".") : folder.string();
}

}  // namespace

struct SqliteStore::Impl {
  Impl(std::string path, SqliteStoreOptions options)
      : path(std::move(path)), options(std::move(options)) {}

  void open();
  void open_read_only(const char* why);
  bool adopt(db::OpenedDatabase database, StoreState new_state);
  void warn(const std::string& message) {
    if (options.warn) options.warn(message);
  }
  // Failures after a successful open: said once, then silent.
  void runtime_failure(const std::string& what, const std::exception& error) {
    if (runtime_warned) return;
    runtime_warned = true;
    warn("benchmark database " + path + ": " + what + " (" + error.what() + ")");
  }
  void remove_garbage_measurement(const std::string& fingerprint, const std::string& kernel,
                                  const std::string& backend, const std::string& algorithm);

  const std::string path;
  const SqliteStoreOptions options;
  std::mutex mutex;
  StoreState state = StoreState::kDisabled;
  // Declared before the statements that use it, so that it is closed after them.
  sqlite::Connection connection;
  std::optional<db::RowFinder> finder;
  std::optional<db::RowWriter> writer;
  bool runtime_warned = false;
  bool garbage_warned = false;
  std::size_t failed_writes = 0;
};

bool SqliteStore::Impl::adopt(db::OpenedDatabase database, StoreState new_state) {
  try {
    connection = std::move(database.connection);
    finder.emplace(connection);
    if (new_state == StoreState::kReadWrite) writer.emplace(connection);
    state = new_state;
    return true;
  } catch (const std::exception& error) {
    writer.reset();
    finder.reset();
    connection = sqlite::Connection();
    warn("cannot use benchmark database " + path + " (" + error.what() +
         "); running without a benchmark cache");
    return false;
  }
}

void SqliteStore::Impl::open_read_only(const char* why) {
  auto outcome = db::open_database(path, db::Access::kReadOnly);
  if (outcome.database) {
    if (adopt(std::move(*outcome.database), StoreState::kReadOnly) && why)
      warn("benchmark database " + path + " is read-only (" + why +
           "): stored results are used, new ones are not saved");
    return;
  }
  if (options.read_only)
    warn("system benchmark database " + path + " is not used: " + outcome.failure->message);
  else
    warn("benchmark database " + path + " cannot be used (" + outcome.failure->message +
         ") and cannot be replaced (" + why + "); running without a benchmark cache");
}

void SqliteStore::Impl::open() {
  if (options.read_only) return open_read_only(nullptr);

  namespace fs = std::filesystem;
  const std::string folder = folder_of(path);
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) {
    warn("cannot create the folder " + folder + " for the benchmark database (" + error.message() +
         "); running without a benchmark cache");
    return;
  }
  const bool exists = fs::exists(path, error);
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    if (exists) return open_read_only("its folder is not writable");
    warn("the folder " + folder + " of the benchmark database " + path +
         " is not writable; running without a benchmark cache");
    return;
  }
  if (exists && ::access(path.c_str(), W_OK) != 0)
    return open_read_only("the file is not writable");

  constexpr int kAttempts = 3;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto outcome = db::open_database(path, db::Access::kReadWrite);
    if (outcome.database) {
      adopt(std::move(*outcome.database), StoreState::kReadWrite);
      return;
    }
    if (!db::replaceable(outcome.failure->problem)) {
      warn("cannot open benchmark database " + path + " (" + outcome.failure->message +
           "); running without a benchmark cache");
      return;
    }
    // Several processes may find the same bad file at once. Under the lock, the file is
    // inspected again: another process may have set it aside and started afresh already.
    db::FileLock lock(path + ".lock");
    if (!lock.locked()) {
      warn("benchmark database " + path + " is unusable (" + outcome.failure->message +
           ") and cannot be locked to replace it; running without a benchmark cache");
      return;
    }
    outcome = db::open_database(path, db::Access::kReadWrite);
    if (outcome.database) {
      adopt(std::move(*outcome.database), StoreState::kReadWrite);
      return;
    }
    const auto& failure = *outcome.failure;
    if (!db::replaceable(failure.problem)) {
      warn("cannot open benchmark database " + path + " (" + failure.message +
           "); running without a benchmark cache");
      return;
    }
    auto aside = db::set_aside(path, db::name_of(failure.problem));
    if (!aside) {
      warn("benchmark database " + path + " is unusable (" + failure.message + ") and " +
           aside.error() + "; running without a benchmark cache");
      return;
    }
    warn("benchmark database " + path + " was unusable (" + failure.message + "); moved it to " +
         *aside + " and started a new one");
  }
  warn("benchmark database " + path +
       " could not be replaced by a working one; running without a benchmark cache");
}

SqliteStore::SqliteStore(const std::string& path, SqliteStoreOptions options)
    : impl_(std::make_unique<Impl>(path, std::move(options))) {
  try {
    impl_->open();
  } catch (const std::exception& error) {
    // Allocation failures and the like: the application goes on without a cache.
    impl_->state = StoreState::kDisabled;
    impl_->warn("cannot open benchmark database " + path + " (" + error.what() +
                "); running without a benchmark cache");
  }
}

SqliteStore::~SqliteStore() = default;

const std::string& SqliteStore::path() const {
  return impl_->path;
}

StoreState SqliteStore::state() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->state;
}

std::size_t SqliteStore::failed_writes() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->failed_writes;
}

void SqliteStore::Impl::remove_garbage_measurement(const std::string& fingerprint,
                                                   const std::string& kernel,
                                                   const std::string& backend,
                                                   const std::string& algorithm) {
  // A garbage row would otherwise stay forever if its timestamp claims to be newer than any
  // new measurement. Looked up again inside the write lock: another process may have
  // replaced it with a good row meanwhile.
  sqlite::write_transaction(connection, [&] {
    std::int64_t id = 0;
    auto found = finder->find_measurement(fingerprint, kernel, backend, algorithm, &id);
    if (found && !*found) writer->remove_measurement(id);
  });
}

std::optional<MeasurementRecord> SqliteStore::find_measurement(const std::string& fingerprint,
                                                               const KernelKey& micro_kernel,
                                                               const std::string& backend,
                                                               const std::string& algorithm) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  if (impl.state == StoreState::kDisabled) return std::nullopt;
  try {
    const std::string kernel = micro_kernel.to_string();
    auto found = impl.finder->find_measurement(fingerprint, kernel, backend, algorithm);
    if (!found) return std::nullopt;
    if (*found) return db::to_record(found->value(), micro_kernel);
    if (!impl.garbage_warned) {
      impl.garbage_warned = true;
      impl.warn("benchmark database " + impl.path + " has an unreadable measurement (" +
                found->error() + "); ignoring it");
    }
    if (impl.state == StoreState::kReadWrite)
      impl.remove_garbage_measurement(fingerprint, kernel, backend, algorithm);
  } catch (const std::exception& error) {
    impl.runtime_failure("a lookup failed", error);
  }
  return std::nullopt;
}

void SqliteStore::put_measurements(const std::vector<MeasurementRecord>& records) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  if (impl.state != StoreState::kReadWrite || records.empty()) return;
  try {
    const std::int64_t now = sqlite::unix_now();
    std::vector<db::MeasurementRow> rows;
    rows.reserve(records.size());
    for (const auto& record : records) {
      auto row = db::to_row(record, now);
      if (!db::row_error(row)) rows.push_back(std::move(row));
    }
    sqlite::write_transaction(impl.connection, [&] {
      for (const auto& row : rows) impl.writer->put(row, db::Conflict::kNewerOrEqual);
    });
  } catch (const std::exception& error) {
    impl.failed_writes += records.size();
    impl.runtime_failure("results were not saved", error);
  }
}

std::optional<std::vector<Configuration>> SqliteStore::find_plan(const PlanKey& key) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  if (impl.state == StoreState::kDisabled) return std::nullopt;
  try {
    auto found = impl.finder->find_plan(key);
    if (!found) return std::nullopt;
    if (*found) return std::move(*found).value().configurations;
    if (!impl.garbage_warned) {
      impl.garbage_warned = true;
      impl.warn("benchmark database " + impl.path + " has an unreadable plan (" + found->error() +
                "); ignoring it");
    }
  } catch (const std::exception& error) {
    impl.runtime_failure("a lookup failed", error);
  }
  return std::nullopt;
}

void SqliteStore::put_plan(const PlanKey& key, const std::vector<Configuration>& plan) {
  auto& impl = *impl_;
  std::lock_guard lock(impl.mutex);
  if (impl.state != StoreState::kReadWrite) return;
  try {
    const db::PlanRow row{key, plan, sqlite::unix_now()};
    if (db::row_error(row)) return;
    sqlite::write_transaction(impl.connection,
                              [&] { impl.writer->put(row, db::Conflict::kReplace); });
  } catch (const std::exception& error) {
    ++impl.failed_writes;
    impl.runtime_failure("a plan was not saved", error);
  }
}

}  // namespace ucudnn
