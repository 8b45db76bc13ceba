#include "shim/store_factory.h"

#include "db/default_store.h"
#include "db/sqlite_store.h"
#include "shim/log.h"

namespace ucudnn::shim {

namespace {
void warn(const std::string& message) {
  warn_once(message, message);
}
}  // namespace

std::unique_ptr<BenchmarkStore> open_store(const Settings&) {
  // The database library reads UCUDNN_DATABASE and UCUDNN_SYSTEM_DATABASE itself, so that
  // the `ucudnn` tool and the shim always agree on where the database is.
  return open_default_store(warn);
}

std::unique_ptr<BenchmarkStore> open_store_at(const std::string& path) {
  auto store = std::make_unique<SqliteStore>(path, SqliteStoreOptions{false, warn});
  if (store->state() == StoreState::kDisabled) return nullptr;
  return store;
}

}  // namespace ucudnn::shim
