#include "user_input/byte_size.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "core/text.h"

namespace ucudnn {

namespace {

struct Unit {
  const char* name;
  std::uint64_t scale;
  bool exact_case;  // decimal units: "kB", "MB"; other spellings are ambiguous
};

constexpr std::uint64_t kKi = 1024;
constexpr Unit kUnits[] = {{"", 1, false},
                           {"B", 1, false},
                           {"KiB", kKi, false},
                           {"K", kKi, false},
                           {"MiB", kKi* kKi, false},
                           {"M", kKi* kKi, false},
                           {"GiB", kKi* kKi* kKi, false},
                           {"G", kKi* kKi* kKi, false},
                           {"TiB", kKi* kKi* kKi* kKi, false},
                           {"T", kKi* kKi* kKi* kKi, false},
                           {"PiB", kKi* kKi* kKi* kKi* kKi, false},
                           {"P", kKi* kKi* kKi* kKi* kKi, false},
                           {"EiB", kKi* kKi* kKi* kKi* kKi* kKi, false},
                           {"E", kKi* kKi* kKi* kKi* kKi* kKi, false},
                           {"kB", 1000ull, true},
                           {"MB", 1000'000ull, true},
                           {"GB", 1000'000'000ull, true},
                           {"TB", 1000'000'000'000ull, true},
                           {"PB", 1000'000'000'000'000ull, true},
                           {"EB", 1000'000'000'000'000'000ull, true}};

std::string_view without_surrounding_space(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return text;
}

}  // namespace

Expected<std::uint64_t> parse_byte_size(std::string_view text) {
  const std::string original(text);
  auto fail = [&] {
    return Error{"invalid byte size '" + original +
                 "'; write a number with an optional unit: 4096, 64KiB, 64MiB, 1GiB (powers of "
                 "1024), or 1GB (of 1000)"};
  };
  auto too_large = [&] {
    return Error{"byte size '" + original +
                 "' is too large: the most is 2^64 - 1 bytes (18446744073709551615, just under "
                 "16 EiB)"};
  };
  text = without_surrounding_space(text);
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  if (digits == 0) return fail();
  const std::string number(text.substr(0, digits));
  std::string unit;
  for (char c : text.substr(digits))
    if (!std::isspace(static_cast<unsigned char>(c))) unit += c;
  const Unit* found = nullptr;
  for (const auto& candidate : kUnits) {
    if (candidate.exact_case ? unit == candidate.name
                             : equals_ignoring_case(unit, candidate.name)) {
      found = &candidate;
      break;
    }
    // "KB", "mb": read as 1000 by some and 1024 by others (and "Mb" as bits).
    if (candidate.exact_case && equals_ignoring_case(unit, candidate.name))
      return Error{"byte size '" + original + "': '" + unit + "' is read both ways; write " +
                   std::string(1, static_cast<char>(std::toupper(candidate.name[0]))) +
                   "iB (powers of 1024) or " + candidate.name + " (powers of 1000)"};
  }
  if (!found) return fail();
  if (number.find('.') == std::string::npos) {
    // Whole numbers exactly, to the last of 2^64 - 1.
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (error == std::errc::result_out_of_range) return too_large();
    if (error != std::errc() || end != number.data() + number.size()) return fail();
    if (value > UINT64_MAX / found->scale) return too_large();
    return value * found->scale;
  }
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(value)) return fail();
  const double bytes = value * static_cast<double>(found->scale);
  if (found->scale == 1 && bytes != std::floor(bytes))
    return Error{"byte size '" + original + "' is not a whole number of bytes"};
  if (std::round(bytes) >= 18446744073709551616.0) return too_large();  // 2^64
  return static_cast<std::uint64_t>(std::round(bytes));
}

std::optional<std::string> unitless_size_note(std::string_view text) {
  text = without_surrounding_space(text);
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      }))
    return std::nullopt;
  const auto bytes = parse_byte_size(text);
  // Read as mebibytes, more than 64 GiB is no workspace anyone sets: bytes meant.
  if (!bytes || *bytes == 0 || *bytes > 64 * kKi) return std::nullopt;
  const std::string number = std::to_string(*bytes);
  std::string note = "'";
  note.append(text).append("' is ").append(number).append(*bytes == 1 ? " byte" : " bytes");
  note.append(
      " (a number without a unit is bytes), too little for most fast convolution algorithms; for "
      "mebibytes write ");
  note.append(number).append("MiB");
  // 4096MiB is not obviously what "4096" meant: the size it is, said.
  if (*bytes >= kKi) note.append(" (").append(format_byte_size(*bytes * kKi * kKi)).append(")");
  return note;
}

std::optional<std::string> zero_limit_note(std::string_view text) {
  const auto bytes = parse_byte_size(text);
  if (!bytes || *bytes != 0) return std::nullopt;
  std::string note = "'";
  return note.append(without_surrounding_space(text))
      .append(
          "' gives each kernel no workspace at all (0 is not unlimited): only algorithms that "
          "need none are candidates");
}

std::string format_byte_size(std::uint64_t bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 6) {
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

std::string format_byte_size_at_least(std::uint64_t bytes) {
  static const char* kNames[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  using Wide = unsigned __int128;
  for (int unit = 6; unit > 0; --unit) {
    const std::uint64_t size = std::uint64_t{1} << (10 * unit);
    if (bytes < size) continue;
    // The fewest decimals (none, one, two) that round up by under 1%: two always do, a value of
    // at least one unit. Above TiB parse_byte_size's double would read a decimal back a few
    // bytes short: whole numbers only, in the next smaller unit where need be.
    for (const unsigned scale : {1u, 10u, 100u}) {
      if (scale > 1 && unit > 4) break;
      const Wide steps = (Wide{bytes} * scale + size - 1) / size;  // ceil(bytes / size * scale)
      const Wide said = (steps * size + scale - 1) / scale;        // the bytes it reads back as
      if (said > UINT64_MAX) break;  // no more than a byte size can say: a smaller unit
      if (said - bytes > bytes / 100) continue;
      const auto whole = static_cast<std::uint64_t>(steps / scale);
      const auto fraction = static_cast<unsigned>(steps % scale);
      char text[64];
      if (scale == 1)
        std::snprintf(text, sizeof text, "%llu %s", static_cast<unsigned long long>(whole),
                      kNames[unit]);
      else
        std::snprintf(text, sizeof text, "%llu.%0*u %s", static_cast<unsigned long long>(whole),
                      scale == 10 ? 1 : 2, fraction, kNames[unit]);
      return text;
    }
  }
  return std::to_string(bytes) + " B";
}

}  // namespace ucudnn
