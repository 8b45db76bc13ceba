#pragma once
// Reading one field of a JSON object with its type and range checked. The error names the
// field and shows the offending value, e.g. "batch: -4 is not an integer >= 1", so that a
// bad export file or a poisoned plan can be found and fixed.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/expected.h"

namespace ucudnn::db {

// A value as it appears in an error message (shortened, invalid UTF-8 replaced).
std::string describe(const nlohmann::json& value);

Expected<std::string> string_field(const nlohmann::json& object, const std::string& field);
// An integer (not 2.0, not "2") in [minimum, INT64_MAX].
Expected<std::int64_t> integer_field(const nlohmann::json& object, const std::string& field,
                                     std::int64_t minimum);
// An integer in [0, UINT64_MAX].
Expected<std::uint64_t> unsigned_field(const nlohmann::json& object, const std::string& field);
// A finite number >= 0.
Expected<double> non_negative_number_field(const nlohmann::json& object, const std::string& field);

// The first member of `object` not among `fields`, as an error naming the fields `what` has: a
// mistyped optional field ("valid_bellow") would otherwise be dropped without a word, and a
// mistyped required one be reported missing with no hint why.
std::optional<std::string> unknown_field(const nlohmann::json& object,
                                         std::initializer_list<const char*> fields,
                                         const char* what);

// Text fields read straight into a row's members, in the table's order; the error is the
// first missing or non-text one's.
template <typename Row>
struct TextField {
  const char* name;
  std::string Row::*member;
};

template <typename Row, std::size_t N>
std::optional<std::string> read_text_fields(const nlohmann::json& object,
                                            const TextField<Row> (&fields)[N], Row& row) {
  for (const auto& field : fields) {
    auto text = string_field(object, field.name);
    if (!text) return text.error();
    row.*field.member = std::move(text).value();
  }
  return std::nullopt;
}

}  // namespace ucudnn::db
