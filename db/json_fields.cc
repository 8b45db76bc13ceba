#include "db/json_fields.h"

#include <cmath>
#include <limits>

namespace ucudnn::db {

namespace {

// dump() recurses once per level: a poisoned value nested a million deep would overflow
// the stack. Nesting beyond two levels and all but the first few elements are elided.
void render(const nlohmann::json& value, int depth, std::string& out) {
  constexpr std::size_t kElements = 4;
  if (!value.is_structured()) {
    out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return;
  }
  const bool array = value.is_array();
  if (value.empty()) {
    out += array ? "[]" : "{}";
    return;
  }
  if (depth >= 2) {
    out += array ? "[...]" : "{...}";
    return;
  }
  out += array ? '[' : '{';
  std::size_t shown = 0;
  for (auto it = value.begin(); it != value.end(); ++it, ++shown) {
    if (shown) out += ", ";
    if (shown == kElements) {
      out += "...";
      break;
    }
    if (!array)
      out +=
          nlohmann::json(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
          ": ";
    render(*it, depth + 1, out);
  }
  out += array ? ']' : '}';
}

}  // namespace

std::string describe(const nlohmann::json& value) {
  constexpr std::size_t kLongest = 60;
  std::string text;
  render(value, 0, text);
  if (text.size() > kLongest) text = text.substr(0, kLongest) + "...";
  return text;
}

namespace {

Expected<const nlohmann::json*> member(const nlohmann::json& object, const std::string& field) {
  if (!object.is_object()) return Error{describe(object) + " is not an object"};
  auto found = object.find(field);
  if (found == object.end()) return Error{field + ": missing"};
  return &*found;
}

}  // namespace

Expected<std::string> string_field(const nlohmann::json& object, const std::string& field) {
  auto value = member(object, field);
  if (!value) return Error{value.error()};
  if (!(*value)->is_string()) return Error{field + ": " + describe(**value) + " is not a string"};
  return (*value)->get<std::string>();
}

Expected<std::int64_t> integer_field(const nlohmann::json& object, const std::string& field,
                                     std::int64_t minimum) {
  auto value = member(object, field);
  if (!value) return Error{value.error()};
  const nlohmann::json& v = **value;
  const Error bad{field + ": " + describe(v) + " is not an integer >= " + std::to_string(minimum)};
  // nlohmann keeps non-negative literals as unsigned: one above INT64_MAX must not wrap.
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return bad;
    if (static_cast<std::int64_t>(u) < minimum) return bad;
    return static_cast<std::int64_t>(u);
  }
  if (!v.is_number_integer()) return bad;
  const auto i = v.get<std::int64_t>();
  if (i < minimum) return bad;
  return i;
}

Expected<std::uint64_t> unsigned_field(const nlohmann::json& object, const std::string& field) {
  auto value = member(object, field);
  if (!value) return Error{value.error()};
  const nlohmann::json& v = **value;
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return static_cast<std::uint64_t>(v.get<std::int64_t>());
  return Error{field + ": " + describe(v) + " is not a non-negative integer"};
}

Expected<double> non_negative_number_field(const nlohmann::json& object, const std::string& field) {
  auto value = member(object, field);
  if (!value) return Error{value.error()};
  const nlohmann::json& v = **value;
  if (v.is_number()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= 0) return d;
  }
  return Error{field + ": " + describe(v) + " is not a finite number >= 0"};
}

std::optional<std::string> unknown_field(const nlohmann::json& object,
                                         std::initializer_list<const char*> fields,
                                         const char* what) {
  if (!object.is_object()) return std::nullopt;  // the fields' own reading says what it is
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* field : fields) known = known || key == field;
    if (known) continue;
    std::string names;
    for (const char* field : fields) names += (names.empty() ? "" : ", ") + std::string(field);
    return "'" + key + "' is not a field of " + what + " (" + names + ")";
  }
  return std::nullopt;
}

}  // namespace ucudnn::db
