// The SQLite store's file: opening it (with leases and retries), opening it again after it
// was locked, moved or damaged, and setting a damaged one aside (sqlite_store_impl.h).
#include "db/sqlite_store_impl.h"

#include <cstdio>
#include <thread>

#include "core/text.h"
#include "db/readable_rows.h"
#include "db/row_reader.h"

namespace ucudnn {

using namespace sqlite_store_detail;

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
    if (new_state == StoreState::kReadWrite) {
      writer.emplace(connection);
      if (lease) lease->mark_database_held();
    }
    state = new_state;
    reopen_wanted = false;
    if (new_state == StoreState::kReadWrite) unwritable_from_open = false;  // rows are kept again
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

std::string SqliteStore::Impl::locked_warning(const std::string& why) const {
  std::string waited;
  if (const auto wait = lock_timeout(); wait.count() > 0) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.4g s", static_cast<double>(wait.count()) / 1000.0);
    waited = "; waited " + std::string(seconds) + ", UCUDNN_DATABASE_LOCK_TIMEOUT";
  }
  return named() + " is locked by another process (" + why + waited +
         "); running uncached until it is free";
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
      warn_once(said_locked, locked_warning(failure.message));
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
    if (failure.problem == db::FileProblem::kUsersFile) return warn_users_file(failure.message);
    if (failure.problem == db::FileProblem::kForeign || failure.problem == db::FileProblem::kText) {
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
    if (replaced == Replaced::kUsersFile) return warn_users_file(failure.message);
    if (replaced == Replaced::kAdopted || replaced == Replaced::kGaveUp) return;
    if (replaced == Replaced::kSetAside) continue;
    const auto waited = std::chrono::steady_clock::now() - start;
    if (waited >= lock_timeout()) {
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
  // Asked under the exclusive lease, through its descriptor (closing another would drop it).
  const auto database_was_here = [&] { return exclusive->says_database_held(); };
  if (failure.problem == db::FileProblem::kNotDatabase &&
      db::users_file(path, database_was_here) == db::UsersFile::kOther)
    return Replaced::kUsersFile;
  auto aside = db::set_aside(path, db::name_of(failure.problem));
  if (!aside) {
    warn(named() + " is unusable (" + failure.message + ") and " + aside.error() +
         "; running without a benchmark cache");
    return Replaced::kGaveUp;
  }
  save_again();
  auto fresh = db::open_database(path, db::Access::kReadWrite, open_options(), &*exclusive);
  // Damage is mostly a page or two: what the file still holds goes into the fresh one, under the
  // exclusive lease, so that a process waiting for it finds the rows there and measures nothing
  // again (a cluster's bench measured everything again).
  std::string rescued;
  if (failure.problem == db::FileProblem::kCorrupt)
    rescued = fresh.database ? copy_back(*aside, fresh.database->connection) : merge_advice(*aside);
  warn(named() + " was unusable (" + failure.message + "); moved it to " + *aside +
       " and started a new one" + rescued);
  if (fresh.database) return take(fresh);
  return Replaced::kSetAside;
}

std::string SqliteStore::Impl::merge_advice(const std::string& aside) const {
  if (!db::any_row_readable(aside)) return "";
  return " (the rows it still holds are copied back by `ucudnn db merge " + shell_word(aside) +
         " --into " + shell_word(path) + "`)";
}

std::string SqliteStore::Impl::copy_back(const std::string& aside, sqlite::Connection& fresh) {
  // Read whole into this process, under the exclusive lease that others wait on: a file larger
  // than any database of measurements is left to `ucudnn db merge`.
  constexpr std::uintmax_t kLargestCopied = std::uintmax_t{256} << 20;
  std::error_code ignored;
  if (fs::file_size(aside, ignored) > kLargestCopied) return merge_advice(aside);
  // The read's lock file beside the aside file, which nothing else will ever ask for.
  struct RemoveLock {
    std::string path;
    ~RemoveLock() {
      std::error_code ignored;
      fs::remove(path, ignored);
    }
  } remove_lock{aside + ".lock"};
  try {
    auto rows = db::read_readable_rows(aside, open_options().lock_wait);
    if (!rows) return merge_advice(aside);
    std::size_t measurements = 0, plans = 0;
    sqlite::write_transaction(fresh, [&] {
      db::RowWriter writer(fresh);
      measurements = plans = 0;  // a retry starts over
      for (const auto& row : rows->measurements)
        measurements += writer.put(row, db::Conflict::kNewer);
      for (const auto& row : rows->plans) plans += writer.put(row, db::Conflict::kNewer);
    });
    const std::string check = "`ucudnn db check --database " + shell_word(aside) + "`";
    std::string text;
    if (measurements + plans > 0)
      text = "; the " + counted(measurements, "measurement") + " and " + counted(plans, "plan") +
             " it still held were copied into it";
    if (!rows->unreadable.empty() || rows->invalid_rows_skipped > 0)
      text += (text.empty() ? "; " : " (") + check + " names the rows " +
              (rows->unreadable.empty() ? "it held that break a rule" : "its damage hides") +
              (text.empty() ? "" : ")");
    return text;
  } catch (const std::exception&) {
    return merge_advice(aside);
  }
}

void SqliteStore::Impl::warn_users_file(const std::string& why) {
  warn(named() + " is " + why +
       ", and nothing beside it says that a ucudnn database has been there (its .lock file; "
       "a database last written by an older ucudnn has no such mark): it is taken for a file of "
       "yours named by a slip, left as it is, and ucudnn runs without a benchmark cache (set "
       "UCUDNN_DATABASE to another file, or move this one away)");
}

bool SqliteStore::Impl::recover_from_damage(const std::string& why) {
  switch (replace_damaged(why)) {
    case Replaced::kUsersFile:
      warn_users_file(why);
      break;
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

}  // namespace ucudnn
