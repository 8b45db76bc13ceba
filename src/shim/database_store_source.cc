// The SQLite databases as the shim's store; problems with the files are warnings, never
// failures.
#include "shim/store_source.h"

#include "db/default_store.h"
#include "db/sqlite_store.h"
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
  return open_default_store(shim_options(settings));
}

std::unique_ptr<BenchmarkStore> open_store_at(const std::string& path) {
  auto store = std::make_unique<SqliteStore>(path, shim_options(process_settings()));
  if (store->state() == StoreState::kDisabled) return nullptr;
  return store;
}

}  // namespace ucudnn::shim
