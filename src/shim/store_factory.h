#pragma once
// Opens the store the shim keeps benchmarks and plans in: the user database (UCUDNN_DATABASE,
// default under $XDG_CACHE_HOME/ucudnn/) over the read-only system one
// (UCUDNN_SYSTEM_DATABASE). Problems with the files are warnings, never failures.
#include <memory>
#include <string>

#include "core/benchmark_store.h"
#include "shim/settings.h"

namespace ucudnn::shim {

std::unique_ptr<BenchmarkStore> open_store(const Settings& settings);
// nullptr when the database at `path` cannot be used.
std::unique_ptr<BenchmarkStore> open_store_at(const std::string& path);

}  // namespace ucudnn::shim
