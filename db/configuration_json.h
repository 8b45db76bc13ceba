#pragma once
// A plan's configurations as JSON, the form they take in the plans table and in export files:
//   [{"micro": [{"backend": "cudnn", "algorithm": "FFT", "batch": 32,
//                "time_ms": 1.25, "workspace_bytes": 1048576}, ...]}, ...]
// Reading validates every field (a database may be shared, damaged or poisoned): types,
// batch a positive int64, time_ms finite and non-negative, workspace_bytes a non-negative
// integer that fits 64 bits. Whether the plan fits a kernel is plan_validation's business.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/configuration.h"
#include "core/expected.h"

namespace ucudnn::db {

nlohmann::json configurations_to_json(const std::vector<Configuration>& plan);
// Errors name the field relative to the list, so that a caller can prefix where the list is:
// "[0].micro[2].batch: -4 is not an integer >= 1", or ": not valid JSON".
Expected<std::vector<Configuration>> configurations_from_json(const nlohmann::json& value);

// Compact text for the database. Throws nlohmann::json exceptions on names that are not UTF-8.
std::string configurations_to_text(const std::vector<Configuration>& plan);
Expected<std::vector<Configuration>> configurations_from_text(std::string_view text);

}  // namespace ucudnn::db
