#pragma once
// Durations as users type them in settings and options: "100ms", "2s", "1.5s", or a number of
// milliseconds; at most an hour.
#include <chrono>
#include <optional>
#include <string_view>

namespace ucudnn {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace ucudnn
