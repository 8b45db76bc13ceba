#pragma once
// The fields of a canonical fingerprint text (the inverse of DeviceFingerprint::to_string),
// stored beside it so that people and tools can read a database without parsing escapes.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ucudnn::db {

// Lenient: a part without '=' becomes a field with an empty value; nothing is rejected,
// because the canonical text alone is what identifies a device.
std::vector<std::pair<std::string, std::string>> fingerprint_fields(std::string_view canonical);

// [[name, value], ...] as JSON text (names and values that are not UTF-8 are replaced).
std::string fingerprint_fields_json(std::string_view canonical);

}  // namespace ucudnn::db
