#include "networks/json_text.h"

namespace ucudnn {

namespace {

using json = nlohmann::json;

// A value as an error message shows it: short, nesting elided (dump() recurses per level, and
// a hostile file could nest deep), invalid UTF-8 replaced.
void render(const json& value, int depth, std::string& out) {
  if (!value.is_structured()) {
    out += value.dump(-1, ' ', false, json::error_handler_t::replace);
    return;
  }
  const bool array = value.is_array();
  if (value.empty() || depth >= 2) {
    out += array ? (value.empty() ? "[]" : "[...]") : (value.empty() ? "{}" : "{...}");
    return;
  }
  out += array ? '[' : '{';
  std::size_t shown = 0;
  for (auto it = value.begin(); it != value.end(); ++it, ++shown) {
    if (shown) out += ", ";
    if (shown == 4) {
      out += "...";
      break;
    }
    if (!array) out += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ": ";
    render(*it, depth + 1, out);
  }
  out += array ? ']' : '}';
}

}  // namespace

std::string describe(const json& value) {
  std::string text;
  render(value, 0, text);
  if (text.size() > 60) text = text.substr(0, 60) + "...";
  return text;
}

std::string list(const std::vector<std::int64_t>& values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string join_names(const std::set<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace ucudnn
