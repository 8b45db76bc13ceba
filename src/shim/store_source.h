#pragma once
// Where the shim's store of benchmarks and plans comes from. The shim opens nothing itself:
// the registry asks these functions, and each front end links the source it wants
// (database_store_source.cc: the user database, UCUDNN_DATABASE, default under
// $XDG_CACHE_HOME/ucudnn/, over the read-only system one, UCUDNN_SYSTEM_DATABASE). The
// shim's logic thus builds and is tested without db/.
#include <memory>
#include <string>

#include "core/benchmark_store.h"
#include "shim/settings.h"

namespace ucudnn::shim {

std::unique_ptr<BenchmarkStore> open_store(const Settings& settings);
// The store at `path` (the options API); nullptr when it cannot be used.
std::unique_ptr<BenchmarkStore> open_store_at(const std::string& path);

}  // namespace ucudnn::shim
