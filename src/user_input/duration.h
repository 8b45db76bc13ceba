#pragma once
// Durations as users type them in settings and options: "100ms", "2s", "1.5s", "2 s", "5min",
// "1h" (units in any case), or a number of milliseconds; at most an hour.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace ucudnn {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);
// Where `text` is a bare number up to 60 ("60", "5"): a note that it reads as milliseconds, and
// how to write seconds, since those are seconds as people count a wait.
std::optional<std::string> unitless_duration_note(std::string_view text);

// A time in milliseconds as the tool prints it: "425.2 ms", "3.471 ms", "0.01234 ms" (four
// significant digits below 100 ms, so that a fast network's totals are not all "0.0 ms").
std::string format_milliseconds(double ms);
// The same number without the unit, for a table's column of milliseconds.
std::string format_milliseconds_number(double ms);

}  // namespace ucudnn
