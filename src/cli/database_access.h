#pragma once
// Which database the commands use: --database PATH, else the default one (UCUDNN_DATABASE,
// else $XDG_CACHE_HOME/ucudnn/ucudnn.db or ~/.cache/ucudnn/ucudnn.db, over the read-only
// UCUDNN_SYSTEM_DATABASE), the same files the shim uses. A lock is waited for up to
// UCUDNN_DATABASE_LOCK_TIMEOUT (default 60 s), saying so after a second.
#include <memory>
#include <string>
#include <vector>

#include "core/benchmark_store.h"
#include "core/expected.h"
#include "db/sqlite.h"

namespace ucudnn::cli {

struct OpenedStore {
  std::unique_ptr<BenchmarkStore> store;
  std::string description;         // for people: the path, and the system layer if any
  std::vector<std::string> files;  // the database files, user layer first
};

// `ucudnn bench`: a file that cannot be written, explicit or the default, is an error before
// anything is measured (the results would be lost), and so is a text file named as --database.
Expected<OpenedStore> open_store_for_writing(const std::string& database);
// `ucudnn plan` and `report`: never creates or changes a file. A text file named as --database is
// an error, as for writing.
Expected<OpenedStore> open_store_for_reading(const std::string& database);

// After a command stored results: every row it saved is in the file now at the path (read back
// and written again where missing), or an error naming the rows that are not, and false: the
// command then fails, never says it succeeded with results lost.
bool confirm_saved(const OpenedStore& opened, const std::string& command);

// How long the tool waits for another process's lock (UCUDNN_DATABASE_LOCK_TIMEOUT), saying so
// after a second: for the stores and for `ucudnn db`'s commands.
sqlite::LockWait tool_lock_wait();

// The file `ucudnn db` works on by default: the user database.
Expected<std::string> default_database_file();

}  // namespace ucudnn::cli
