#pragma once
// Opens the store the shim keeps benchmarks and plans in: the database the settings name
// (UCUDNN_DATABASE over UCUDNN_SYSTEM_DATABASE), or process memory until the database
// library is linked in.
#include <memory>
#include <string>

#include "core/benchmark_store.h"
#include "shim/settings.h"

namespace ucudnn::shim {

std::unique_ptr<BenchmarkStore> open_store(const Settings& settings);
// nullptr when the database at `path` cannot be used.
std::unique_ptr<BenchmarkStore> open_store_at(const std::string& path);

}  // namespace ucudnn::shim
