#pragma once
// Each enum's names in one constexpr table, read both ways: name_of() for keys, logs and
// files, and parsing for settings and options. One table per enum keeps the two directions
// from drifting apart.
#include <optional>
#include <string>
#include <string_view>

#include "core/text.h"

namespace ucudnn {

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

// The name of `value` in `table`, or `unknown` for a value the table lacks (a cast integer).
template <typename Enum, std::size_t N>
constexpr std::string_view name_in(const EnumName<Enum> (&table)[N], Enum value,
                                   std::string_view unknown = "UNKNOWN") {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return unknown;
}

// The value named `text` in `table`, ignoring case.
template <typename Enum, std::size_t N>
std::optional<Enum> value_in(const EnumName<Enum> (&table)[N], std::string_view text) {
  for (const auto& entry : table)
    if (equals_ignoring_case(text, entry.name)) return entry.value;
  return std::nullopt;
}

// Every name of `table`, in its order and comma-separated: the valid values, for messages.
template <typename Enum, std::size_t N>
std::string names_in(const EnumName<Enum> (&table)[N]) {
  std::string names;
  for (const auto& entry : table) names.append(names.empty() ? "" : ", ").append(entry.name);
  return names;
}

}  // namespace ucudnn
