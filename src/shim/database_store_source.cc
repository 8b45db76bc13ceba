// The SQLite databases as the shim's store; problems with the files are warnings, never
// failures.
#include "shim/store_source.h"

#include <memory>
#include <string>

#include "core/memory_store.h"
#include "db/default_store.h"
#include "db/sqlite_store.h"
#include "db/warning.h"
#include "shim/log.h"

namespace ucudnn::shim {

namespace {
void warn(const std::string& message) {
  warn_once(message, message);
}

// A training step waits for another process's lock only briefly; then lookups proceed
// uncached and results are saved later.
SqliteStoreOptions shim_options(const Settings& settings) {
  SqliteStoreOptions options;
  options.warn = warn;
  options.lock_timeout = settings.database_lock_timeout;
  return options;
}

}  // namespace

std::unique_ptr<BenchmarkStore> open_store(const Settings& settings) {
  // The database library reads UCUDNN_DATABASE and UCUDNN_SYSTEM_DATABASE itself, so that
  // the `ucudnn` tool and the shim always agree on where the database is.
  log(LogLevel::kInfo, "benchmark database: " + describe(database_locations()));
  return open_default_store(shim_options(settings));
}

std::unique_ptr<BenchmarkStore> open_store_at(const std::string& path) {
  // As UCUDNN_DATABASE=:memory: (it was a file of that name in the working folder).
  if (path == kInMemoryDatabase) return std::make_unique<MemoryStore>();
  // The store's warnings say what it does without its file; refused here, the database in use
  // stays, and they say that instead.
  const HeldWarnings opening(warn);
  auto options = shim_options(process_settings());
  options.warn = opening.sink();
  auto store = std::make_unique<SqliteStore>(home_expanded(path), options);
  const bool refused = store->state() == StoreState::kDisabled;
  opening.release([refused](std::string message) {
    if (refused)
      for (const std::string without :
           {"ucudnn runs without a benchmark cache", "running without a benchmark cache",
            "running uncached until it is free"})
        if (const auto at = message.find(without); at != std::string::npos)
          message.replace(at, without.size(), "the benchmark database in use stays");
    return "ucudnnSetDatabase: " + message;
  });
  if (refused) return nullptr;
  return store;
}

}  // namespace ucudnn::shim
