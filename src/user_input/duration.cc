#include "user_input/duration.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace ucudnn {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  // Units as byte sizes take them: any case, a space before them allowed ("2 s", "5min").
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view rest = lower;
  double scale = 1;
  for (const auto& [unit, ms] :
       {std::pair<std::string_view, double>{"ms", 1}, {"min", 60000}, {"s", 1000}, {"h", 3.6e6}})
    if (rest.ends_with(unit)) {
      rest.remove_suffix(unit.size());
      scale = ms;
      break;
    }
  if (scale != 1 || lower.ends_with("ms"))
    while (rest.ends_with(' ')) rest.remove_suffix(1);
  text = rest;
  const std::string number(text);
  // Decimal digits only: strtod would also read hexadecimal, exponents, inf and nan.
  if (number.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(value >= 0) || value * scale > 3.6e6) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(value * scale + 0.5));
}

std::optional<std::string> unitless_duration_note(std::string_view text) {
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string_view::npos)
    return std::nullopt;
  const auto ms = parse_duration(text);
  // Up to a minute: "100" (the shim's default, in milliseconds) is left alone.
  if (!ms || ms->count() == 0 || ms->count() > 60) return std::nullopt;
  const std::string number(text);
  return "'" + number + "' is " + number +
         " ms (a number without a unit is milliseconds); for seconds write " + number + "s";
}

std::string format_milliseconds_number(double ms) {
  char text[64];
  std::snprintf(text, sizeof text, ms >= 100 || ms <= -100 ? "%.1f" : "%.4g", ms);
  return text;
}

std::string format_milliseconds(double ms) {
  return format_milliseconds_number(ms) + " ms";
}

}  // namespace ucudnn
