#include "core/engine_name.h"

#include <algorithm>
#include <charconv>

namespace ucudnn {

namespace {

// Reads a decimal integer (an optional '-', then digits) at the front of `text`.
std::optional<std::int64_t> take_integer(std::string_view& text) {
  std::int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin == end || (*begin != '-' && (*begin < '0' || *begin > '9'))) return std::nullopt;
  const auto [next, error] = std::from_chars(begin, end, value);
  if (error != std::errc()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(next - begin));
  return value;
}

bool take(std::string_view& text, std::string_view prefix) {
  if (text.substr(0, prefix.size()) != prefix) return false;
  text.remove_prefix(prefix.size());
  return true;
}

}  // namespace

EngineName EngineName::of(std::int64_t engine,
                          std::vector<std::pair<std::int64_t, std::int64_t>> knobs) {
  std::sort(knobs.begin(), knobs.end());
  return {engine, std::move(knobs)};
}

std::optional<EngineName> EngineName::parse(std::string_view name) {
  EngineName parsed;
  if (!take(name, "eng")) return std::nullopt;
  const auto engine = take_integer(name);
  if (!engine || *engine < 0) return std::nullopt;
  parsed.engine = *engine;
  if (name.empty()) return parsed;
  if (!take(name, "{")) return std::nullopt;
  while (!take(name, "}")) {
    if (!parsed.knobs.empty() && !take(name, ",")) return std::nullopt;
    if (!take(name, "k")) return std::nullopt;
    const auto type = take_integer(name);
    if (!type || !take(name, "=")) return std::nullopt;
    const auto value = take_integer(name);
    if (!value) return std::nullopt;
    // Canonical only: types ascending, each once.
    if (!parsed.knobs.empty() && parsed.knobs.back().first >= *type) return std::nullopt;
    parsed.knobs.emplace_back(*type, *value);
  }
  if (!name.empty() || parsed.knobs.empty()) return std::nullopt;
  return parsed;
}

std::string EngineName::to_string() const {
  std::string text = "eng" + std::to_string(engine);
  if (knobs.empty()) return text;
  text += '{';
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    if (i) text += ',';
    text += 'k' + std::to_string(knobs[i].first) + '=' + std::to_string(knobs[i].second);
  }
  return text + '}';
}

}  // namespace ucudnn
