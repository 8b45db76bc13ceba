#pragma once
// The store a program gets without configuring anything, from the environment:
//   UCUDNN_DATABASE         the user database (read-write). Default:
//                           $XDG_CACHE_HOME/ucudnn/ucudnn.db (when XDG_CACHE_HOME is an
//                           absolute path), else $HOME/.cache/ucudnn/ucudnn.db. The value
//                           ":memory:" keeps results in process memory only.
//   UCUDNN_SYSTEM_DATABASE  optional read-only database under it (e.g. on a shared file
//                           system, filled by `ucudnn bench` and `ucudnn db merge`).
// Both may start with "~/" (home_expanded).
#include <functional>
#include <memory>
#include <string>

#include "core/benchmark_store.h"
#include "db/sqlite_store.h"
#include "db/warning.h"

namespace ucudnn {

inline constexpr const char* kInMemoryDatabase = ":memory:";

// Looks up an environment variable; nullptr when unset. Tests pass their own.
using Environment = std::function<const char*(const char*)>;
const char* process_environment(const char* name);

// `path` with a leading "~" or "~/" made the home folder: a shell leaves it as it is in quotes,
// after "--database=", or where a program sets the variable, and a folder named "~" would be
// made instead. Other paths (and "~user/...") come back unchanged, as does "~" without a home.
std::string home_expanded(const std::string& path,
                          const Environment& environment = process_environment);

struct DatabaseLocations {
  std::string user;    // empty: no home folder could be found (memory only)
  std::string system;  // empty: no system database
};
DatabaseLocations database_locations(const Environment& environment = process_environment);
// For a person: the user database's path (or that it is in memory only), and the system
// database under it.
std::string describe(const DatabaseLocations& locations);

// A SqliteStore for the user database (with `user`'s warnings and lock waits), under a
// LayeredStore when a system database is set (read shared, named as the system database in
// messages). Never fails: problems are warnings and a store that caches less.
std::unique_ptr<BenchmarkStore> open_default_store(
    const SqliteStoreOptions& user = {}, const Environment& environment = process_environment);

}  // namespace ucudnn
