#include "user_input/byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace ucudnn {

Expected<std::uint64_t> parse_byte_size(std::string_view text) {
  const std::string original(text);
  auto fail = [&] {
    return Error{"invalid byte size '" + original +
                 "'; write a number with an optional unit: 4096, 64KiB, 64MiB, 1GiB, 1GB"};
  };
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  if (digits == 0) return fail();
  const std::string number(text.substr(0, digits));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return fail();
  std::string unit;
  for (char c : text.substr(digits))
    if (!std::isspace(static_cast<unsigned char>(c))) unit += c;
  static const std::pair<const char*, double> kUnits[] = {{"", 1},
                                                          {"B", 1},
                                                          {"KiB", 1024.0},
                                                          {"K", 1024.0},
                                                          {"MiB", 1048576.0},
                                                          {"M", 1048576.0},
                                                          {"GiB", 1073741824.0},
                                                          {"G", 1073741824.0},
                                                          {"TiB", 1099511627776.0},
                                                          {"T", 1099511627776.0},
                                                          {"kB", 1e3},
                                                          {"MB", 1e6},
                                                          {"GB", 1e9},
                                                          {"TB", 1e12}};
  for (const auto& [name, scale] : kUnits) {
    std::string candidate(name);
    bool same = candidate.size() == unit.size();
    const bool exact_case =
        candidate.size() == 2 && candidate[1] == 'B' && candidate[0] != 'i';  // kB, MB...
    for (std::size_t i = 0; same && i < unit.size(); ++i)
      same = exact_case ? unit[i] == candidate[i]
                        : std::tolower(static_cast<unsigned char>(unit[i])) ==
                              std::tolower(static_cast<unsigned char>(candidate[i]));
    if (!same) continue;
    const double bytes = std::round(value * scale);
    if (bytes >= 18446744073709551616.0)  // 2^64
      return Error{"byte size '" + original + "' is too large: at most 16 EiB (2^64 - 1 bytes)"};
    return static_cast<std::uint64_t>(bytes);
  }
  return fail();
}

std::string format_byte_size(std::uint64_t bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buffer[32];
  if (unit == 0 || value == std::floor(value))
    std::snprintf(buffer, sizeof buffer, "%.0f %s", value, kNames[unit]);
  else
    std::snprintf(buffer, sizeof buffer, "%.1f %s", value, kNames[unit]);
  return buffer;
}

}  // namespace ucudnn
