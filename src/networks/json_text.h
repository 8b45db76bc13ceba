#pragma once
// JSON values as the network-file reader's error messages show them: short, nesting elided,
// invalid UTF-8 replaced.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ucudnn {

// At most 60 characters: lists and objects two levels deep, four elements each.
std::string describe(const nlohmann::json& value);
// "[1, 2, 3]"
std::string list(const std::vector<std::int64_t>& values);
// "a, b, c"
std::string join_names(const std::set<std::string>& names);

}  // namespace ucudnn
