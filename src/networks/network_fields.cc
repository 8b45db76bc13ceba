#include "networks/network_fields.h"

#include <algorithm>
#include <cmath>

namespace ucudnn::network_fields {

// The file's name of a data type.
std::string file_name_of(DataType type) {
  for (const auto& choice : kDataTypes)
    if (choice.value == type) return std::string("\"") + choice.name + "\"";
  return std::string(name_of(type));
}

std::optional<Error> FieldReader::unknown_fields(const json& object, const std::string& path,
                                                 const std::set<std::string>& known) const {
  for (auto it = object.begin(); it != object.end(); ++it)
    if (!known.count(it.key()))
      return error(path + (path.empty() ? "" : ".") + it.key(),
                   "unknown field (valid fields: " + join_names(known) + ")");
  return std::nullopt;
}

Expected<std::int64_t> FieldReader::integer(const json& value, const std::string& path,
                                            std::int64_t minimum, std::int64_t maximum) const {
  const std::string wanted = "is not an integer >= " + std::to_string(minimum);
  // A whole number beyond 64 bits reaches here as a float ("1e+23"): too large, not fractional.
  if (value.is_number_float() && std::isfinite(value.get<double>()) &&
      value.get<double>() == std::floor(value.get<double>()) &&
      value.get<double>() > static_cast<double>(maximum))
    return error(path, describe(value) + " is larger than " + std::to_string(maximum));
  if (!value.is_number_integer()) return error(path, describe(value) + " " + wanted);
  // nlohmann keeps non-negative integers unsigned: compare before converting.
  if (value.is_number_unsigned() &&
      value.get<std::uint64_t>() > static_cast<std::uint64_t>(maximum))
    return error(path, describe(value) + " is larger than " + std::to_string(maximum));
  const auto number = value.get<std::int64_t>();
  if (number < minimum) return error(path, describe(value) + " " + wanted);
  if (number > maximum)
    return error(path, describe(value) + " is larger than " + std::to_string(maximum));
  return number;
}

const char* spatial_letters(std::size_t rank) {
  static const char* const names[] = {"w", "h, w", "d, h, w"};
  return names[std::min<std::size_t>(rank, 3) - 1];
}
namespace {
std::string spatial_names(std::size_t rank) {
  return std::string("[") + spatial_letters(rank) + "]";
}
}  // namespace

Expected<std::vector<std::int64_t>> FieldReader::spatial(
    const json& layer, const std::string& field, const std::string& path, std::int64_t minimum,
    std::optional<std::int64_t> fallback, std::size_t rank) const {
  const std::string at = path + "." + field;
  const std::string names = spatial_names(rank);
  auto found = layer.find(field);
  if (found == layer.end()) {
    if (!fallback)
      return error(at, "missing (an integer >= " + std::to_string(minimum) + ", or " + names + ")");
    return std::vector<std::int64_t>(rank, *fallback);
  }
  if (found->is_array()) {
    if (found->size() != rank)
      return error(at, describe(*found) + " has " + std::to_string(found->size()) +
                           " entries; expected " + std::to_string(rank) + " (" + names +
                           ") or one integer for " + (rank == 2 ? "both" : "all"));
    std::vector<std::int64_t> values;
    for (std::size_t i = 0; i < rank; ++i) {
      auto value = integer((*found)[i], at + "[" + std::to_string(i) + "]", minimum);
      if (!value) return Error{value.error()};
      values.push_back(*value);
    }
    return values;
  }
  if (!found->is_number())
    return error(at, describe(*found) + " is not an integer >= " + std::to_string(minimum) +
                         " or a list " + names + " of them");
  auto value = integer(*found, at, minimum);
  if (!value) return Error{value.error()};
  return std::vector<std::int64_t>(rank, *value);
}

std::optional<Error> FieldReader::read_types(const json& object, const std::string& path,
                                             LayerTypes& types) const {
  const std::string prefix = path.empty() ? "" : path + ".";
  // Each field, where given, one of its names.
  auto read = [&](const char* field, const auto& choices, auto& into) -> std::optional<Error> {
    auto it = object.find(field);
    if (it == object.end()) return std::nullopt;
    auto value = choice(*it, prefix + field, choices);
    if (!value) return Error{value.error()};
    into = *value;
    return std::nullopt;
  };
  if (auto problem = read("layout", kLayouts, types.channels_last)) return problem;
  if (auto problem = read("data_type", kDataTypes, types.data_type)) return problem;
  if (auto problem = read("compute_type", kComputeTypes, types.compute_type)) return problem;
  if (auto problem = read("math_type", kMathTypes, types.math_type)) return problem;
  return read("mode", kModes, types.mode);
}

}  // namespace ucudnn::network_fields
