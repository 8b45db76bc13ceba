#pragma once
// Small text helpers shared by the parsers of names people type (policies, networks,
// log levels, environment values).
#include <string_view>

namespace ucudnn {

// ASCII case-insensitive equality.
bool equals_ignoring_case(std::string_view a, std::string_view b);

}  // namespace ucudnn
