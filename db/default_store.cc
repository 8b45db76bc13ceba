#include "db/default_store.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/memory_store.h"
#include "core/text.h"
#include "db/layered_store.h"
#include "db/sqlite_store.h"

namespace ucudnn {

const char* process_environment(const char* name) {
  return std::getenv(name);
}

namespace {

std::string set(const Environment& environment, const char* name) {
  const char* value = environment(name);
  return value ? value : "";
}

std::string home_folder(const Environment& environment) {
  if (auto home = set(environment, "HOME"); !home.empty()) return home;
  // A job started without HOME (some batch systems do that) still has a passwd entry.
  struct passwd entry;
  struct passwd* found = nullptr;
  char buffer[4096];
  if (getpwuid_r(getuid(), &entry, buffer, sizeof buffer, &found) == 0 && found && found->pw_dir)
    return found->pw_dir;
  return "";
}

}  // namespace

std::string home_expanded(const std::string& path, const Environment& environment) {
  if (path.empty() || path.front() != '~' || (path.size() > 1 && path[1] != '/')) return path;
  const std::string home = home_folder(environment);
  if (home.empty()) return path;
  return home + path.substr(1);
}

namespace {

// A relative path made absolute now: SQLite opens the file again by its path (after another
// process set it aside, after a lock), and a program may change its folder meanwhile.
std::string absolute(const std::string& path) {
  if (path.empty() || path == kInMemoryDatabase || path.front() == '/') return path;
  std::error_code error;
  const auto made = std::filesystem::absolute(path, error);
  return error ? path : made.lexically_normal().string();
}

// ":MEMORY:" or ":Memory:" is a slip for ":memory:" (SQLite's name is lower case alone), not a
// file by that name in the working folder.
std::string memory_in_any_case(std::string path) {
  return equals_ignoring_case(path, kInMemoryDatabase) ? kInMemoryDatabase : path;
}

}  // namespace

DatabaseLocations database_locations(const Environment& environment) {
  DatabaseLocations locations;
  locations.system =
      absolute(home_expanded(set(environment, "UCUDNN_SYSTEM_DATABASE"), environment));
  locations.user =
      absolute(home_expanded(memory_in_any_case(set(environment, "UCUDNN_DATABASE")), environment));
  if (!locations.user.empty()) return locations;
  // The XDG base directory specification ignores relative paths.
  if (auto cache = set(environment, "XDG_CACHE_HOME"); !cache.empty() && cache.front() == '/')
    locations.user = cache + "/ucudnn/ucudnn.db";
  else if (auto home = home_folder(environment); !home.empty())
    locations.user = home + "/.cache/ucudnn/ucudnn.db";
  return locations;
}

std::string describe(const DatabaseLocations& locations) {
  std::string text = locations.user.empty() ? "none (no home folder): results kept in memory only"
                     : locations.user == kInMemoryDatabase
                         ? "memory only (UCUDNN_DATABASE=:memory:): nothing is kept"
                         : locations.user;
  if (!locations.system.empty()) text += ", over the read-only " + locations.system;
  return text;
}

std::unique_ptr<BenchmarkStore> open_default_store(const SqliteStoreOptions& options,
                                                   const Environment& environment) {
  const auto locations = database_locations(environment);
  const WarningSink& warn = options.warn;
  std::unique_ptr<BenchmarkStore> user;
  if (locations.user == kInMemoryDatabase) {
    user = std::make_unique<MemoryStore>();
  } else if (locations.user.empty()) {
    if (warn)
      warn("no home folder and no UCUDNN_DATABASE: benchmark results are kept in memory only");
    user = std::make_unique<MemoryStore>();
  } else {
    user = std::make_unique<SqliteStore>(locations.user, options);
  }
  if (locations.system.empty()) return user;
  SqliteStoreOptions shared = options;
  shared.access = StoreAccess::kShared;
  shared.role = "system benchmark database";
  auto system = std::make_unique<SqliteStore>(locations.system, shared);
  return std::make_unique<LayeredStore>(std::move(user), std::move(system));
}

}  // namespace ucudnn
