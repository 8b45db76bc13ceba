#include "database_access.h"

#include <filesystem>

#include <optional>
#include <string>

#include "core/memory_store.h"
#include "core/text.h"
#include "db/database_file.h"
#include "db/default_store.h"
#include "db/file_lease.h"
#include "db/layered_store.h"
#include "db/sqlite_store.h"
#include "exit_status.h"
#include "user_input/duration.h"

namespace ucudnn::cli {

namespace {

std::vector<std::string> files_of(const DatabaseLocations& locations) {
  std::vector<std::string> files;
  for (const auto& file : {locations.user, locations.system})
    if (!file.empty() && file != kInMemoryDatabase) files.push_back(file);
  return files;
}

SqliteStoreOptions tool_options(StoreAccess access, const std::string& role) {
  SqliteStoreOptions options;
  options.access = access;
  const sqlite::LockWait wait = tool_lock_wait();
  options.lock_timeout = wait.timeout;
  options.notice_after = wait.notice_after;
  options.notice = wait.notice;
  options.warn = warn_on_stderr;
  options.role = role;
  return options;
}

// The store's file, where it has one: the user layer of a layered store.
const SqliteStore* file_of(const BenchmarkStore* store) {
  if (auto* layered = dynamic_cast<const LayeredStore*>(store)) store = layered->user();
  return dynamic_cast<const SqliteStore*>(store);
}

std::string locked_out(const std::string& path) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3g s",
                static_cast<double>(tool_lock_wait().timeout.count()) / 1000.0);
  return "'" + path + "' stayed locked by another process for " + seconds +
         " (UCUDNN_DATABASE_LOCK_TIMEOUT): nothing was measured; run again when it is free";
}

// A text file named as --database is the user's (a network file given twice, by a slip), and so
// may be any other file that is no database where no ucudnn database has been (a checkpoint):
// refused, untouched. Bytes where one has been, zeros, or a SQLite header are damage, which a
// store sets aside.
std::optional<std::string> users_file_error(const std::string& database) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(database, error) ||
      std::filesystem::file_size(database, error) == 0)
    return std::nullopt;
  const char* what = nullptr;
  switch (db::users_file(database, [&] { return db::FileLease::database_was_held(database); })) {
    case db::UsersFile::kNo:
      return std::nullopt;
    case db::UsersFile::kText:
      what = "a text file, not a SQLite database";
      break;
    case db::UsersFile::kOther:
      what =
          "not a SQLite database, and its .lock file does not say that a ucudnn database has "
          "been there";
      break;
  }
  if (!what) return std::nullopt;
  return "--database: '" + database + "' is " + what +
         "; it is left as it is: name a database file, or a new one";
}

}  // namespace

sqlite::LockWait tool_lock_wait() {
  // Read once per process: a bad value is warned about once, however many files are opened.
  static const sqlite::LockWait wait = [] {
    sqlite::LockWait read;
    if (const char* value = process_environment("UCUDNN_DATABASE_LOCK_TIMEOUT"); value && *value) {
      if (auto timeout = parse_duration(value)) {
        read.timeout = *timeout;
        if (const auto note = unitless_duration_note(value))
          warn_on_stderr(std::string("UCUDNN_DATABASE_LOCK_TIMEOUT=") + *note);
      } else
        warn_on_stderr(std::string("UCUDNN_DATABASE_LOCK_TIMEOUT='") + value +
                       "' is not a duration such as 100ms or 2s (at most an hour); using the "
                       "default: 60s");
    }
    read.notice = notice_on_stderr;
    return read;
  }();
  return wait;
}

bool confirm_saved(const OpenedStore& opened, const std::string& command) {
  const auto unsaved = opened.store->confirm_saved();
  if (unsaved.empty()) return true;
  std::string list;
  for (std::size_t i = 0; i < unsaved.size() && i < 10; ++i) list += "\n  " + unsaved[i];
  if (unsaved.size() > 10) list += "\n  and " + std::to_string(unsaved.size() - 10) + " more";
  report_error(command, counted(unsaved.size(), "result") + " could not be saved in " +
                            opened.description + " (see the warnings above):" + list);
  return false;
}

Expected<OpenedStore> open_store_for_writing(const std::string& database) {
  if (database.empty()) {
    const auto locations = database_locations();
    if (locations.user.empty()) return Error{default_database_file().error()};
    const HeldWarnings opening(warn_on_stderr);
    auto options = tool_options(StoreAccess::kReadWrite, "benchmark database");
    options.warn = opening.sink();
    auto store = open_default_store(options);
    const SqliteStore* file = file_of(store.get());
    if (file && file->locked_at_open())
      return Error{"the default database " + locked_out(locations.user)};
    opening.release();
    // Refused before anything is measured, as a --database that cannot be written is: measuring
    // a network takes minutes, and would all be lost.
    if (file && file->state() != StoreState::kReadWrite)
      return Error{"the default database '" + locations.user +
                   "' cannot be written (see the warning above): pass --database FILE or set "
                   "UCUDNN_DATABASE"};
    return OpenedStore{std::move(store), describe(locations), files_of(locations)};
  }
  // A damaged database (garbage where one has been, zeros after a crash) is set aside and started
  // afresh.
  if (auto users = users_file_error(database)) return Error{*users};
  const HeldWarnings opening(warn_on_stderr);
  auto options = tool_options(StoreAccess::kReadWrite, "benchmark database");
  options.warn = opening.sink();
  auto store = std::make_unique<SqliteStore>(database, options);
  if (store->locked_at_open()) return Error{"--database: " + locked_out(database)};
  opening.release();
  if (store->state() != StoreState::kReadWrite)
    return Error{"--database: cannot write '" + database + "' (see the warning above)"};
  return OpenedStore{std::move(store), database, {database}};
}

Expected<OpenedStore> open_store_for_reading(const std::string& database) {
  auto open = [](const std::string& file, StoreAccess access,
                 const char* role) -> std::unique_ptr<BenchmarkStore> {
    if (file.empty()) return nullptr;
    if (file == kInMemoryDatabase) return std::make_unique<MemoryStore>();
    return std::make_unique<SqliteStore>(file, tool_options(access, role));
  };
  if (!database.empty()) {
    // No results to read: an error, not advice to run `bench` on a file it refuses.
    if (auto users = users_file_error(database)) return Error{*users};
    return OpenedStore{
        open(database, StoreAccess::kReadOnly, "benchmark database"), database, {database}};
  }
  const auto locations = database_locations();
  // Beside a system database, a user database not made yet is the usual case, not news.
  std::string user_file = locations.user;
  std::error_code missing;
  if (!locations.system.empty() && user_file != kInMemoryDatabase &&
      !std::filesystem::exists(user_file, missing) && !missing)
    user_file.clear();
  auto user = open(user_file, StoreAccess::kReadOnly, "benchmark database");
  auto system = open(locations.system, StoreAccess::kShared, "system benchmark database");
  std::unique_ptr<BenchmarkStore> store;
  if (user && system)
    store = std::make_unique<LayeredStore>(std::move(user), std::move(system));
  else if (user)
    store = std::move(user);
  else if (system)
    store = std::move(system);
  else
    store = std::make_unique<MemoryStore>();
  return OpenedStore{std::move(store), describe(locations), files_of(locations)};
}

Expected<std::string> default_database_file() {
  const auto locations = database_locations();
  if (locations.user.empty())
    return Error{"no database: set UCUDNN_DATABASE or HOME, or pass --database"};
  if (locations.user == kInMemoryDatabase)
    return Error{"UCUDNN_DATABASE=:memory: is not a file: pass --database"};
  return locations.user;
}

}  // namespace ucudnn::cli
