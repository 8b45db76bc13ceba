#include "db/fingerprint_fields.h"

#include <nlohmann/json.hpp>

namespace ucudnn::db {

std::vector<std::pair<std::string, std::string>> fingerprint_fields(std::string_view canonical) {
  std::vector<std::pair<std::string, std::string>> fields;
  if (canonical.empty()) return fields;
  std::pair<std::string, std::string> field;
  bool in_value = false;
  for (std::size_t i = 0; i < canonical.size(); ++i) {
    char c = canonical[i];
    if (c == '\\' && i + 1 < canonical.size()) {
      (in_value ? field.second : field.first).push_back(canonical[++i]);
    } else if (c == ';') {
      fields.push_back(std::move(field));
      field = {};
      in_value = false;
    } else if (c == '=' && !in_value) {
      in_value = true;
    } else {
      (in_value ? field.second : field.first).push_back(c);
    }
  }
  fields.push_back(std::move(field));
  return fields;
}

std::string fingerprint_fields_json(std::string_view canonical) {
  nlohmann::json fields = nlohmann::json::array();
  for (auto& [name, value] : fingerprint_fields(canonical)) fields.push_back({name, value});
  return fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ucudnn::db
