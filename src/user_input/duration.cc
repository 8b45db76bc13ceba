#include "user_input/duration.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace ucudnn {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  double scale = 1;
  if (text.ends_with("ms")) {
    text.remove_suffix(2);
  } else if (text.ends_with("s")) {
    text.remove_suffix(1);
    scale = 1000;
  }
  const std::string number(text);
  // Decimal digits only: strtod would also read hexadecimal, exponents, inf and nan.
  if (number.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !(value >= 0) || value * scale > 3.6e6) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(value * scale + 0.5));
}

std::string format_milliseconds(double ms) {
  char text[64];
  std::snprintf(text, sizeof text, ms >= 100 || ms <= -100 ? "%.1f ms" : "%.4g ms", ms);
  return text;
}

}  // namespace ucudnn
