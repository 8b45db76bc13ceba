#include "db/configuration_json.h"

#include "db/json_fields.h"

namespace ucudnn::db {

namespace {

nlohmann::json micro_to_json(const std::vector<MicroConfiguration>& micro) {
  nlohmann::json result = nlohmann::json::array();
  for (const auto& m : micro)
    result.push_back({{"backend", m.backend},
                      {"algorithm", m.algorithm},
                      {"batch", m.batch},
                      {"time_ms", m.time_ms},
                      {"workspace_bytes", m.workspace_bytes}});
  return result;
}

}  // namespace

nlohmann::json configurations_to_json(const std::vector<Configuration>& plan) {
  nlohmann::json result = nlohmann::json::array();
  for (const auto& configuration : plan) {
    nlohmann::json entry = {{"micro", micro_to_json(configuration.micro)}};
    if (const auto& share = configuration.offload)
      entry["offload"] = {{"micro", micro_to_json(share->micro)},
                          {"copy_ms", share->copy_ms},
                          {"device_bytes", share->device_bytes}};
    result.push_back(std::move(entry));
  }
  return result;
}

namespace {

Expected<MicroConfiguration> micro_from_json(const nlohmann::json& value) {
  auto backend = string_field(value, "backend");
  if (!backend) return Error{backend.error()};
  auto algorithm = string_field(value, "algorithm");
  if (!algorithm) return Error{algorithm.error()};
  auto batch = integer_field(value, "batch", 1);
  if (!batch) return Error{batch.error()};
  auto time = non_negative_number_field(value, "time_ms");
  if (!time) return Error{time.error()};
  auto workspace = unsigned_field(value, "workspace_bytes");
  if (!workspace) return Error{workspace.error()};
  return MicroConfiguration{*backend, *algorithm, *batch, *time, *workspace};
}

// `object`.micro as micro-configurations; errors name the path from `where`.
Expected<std::vector<MicroConfiguration>> micro_list(const nlohmann::json& object,
                                                     const std::string& where) {
  if (!object.contains("micro")) return Error{where + ".micro: missing"};
  const auto& micro = object["micro"];
  if (!micro.is_array()) return Error{where + ".micro: " + describe(micro) + " is not a list"};
  std::vector<MicroConfiguration> parsed;
  parsed.reserve(micro.size());
  for (std::size_t j = 0; j < micro.size(); ++j) {
    const std::string at = where + ".micro[" + std::to_string(j) + "]";
    if (!micro[j].is_object()) return Error{at + ": " + describe(micro[j]) + " is not an object"};
    auto m = micro_from_json(micro[j]);
    if (!m) return Error{at + "." + m.error()};
    parsed.push_back(*m);
  }
  return parsed;
}

Expected<OffloadedShare> offload_from_json(const nlohmann::json& value, const std::string& where) {
  if (!value.is_object()) return Error{where + ": " + describe(value) + " is not an object"};
  auto micro = micro_list(value, where);
  if (!micro) return Error{micro.error()};
  if (micro->empty()) return Error{where + ".micro: an offloaded share has no micro-batches"};
  auto copy = non_negative_number_field(value, "copy_ms");
  if (!copy) return Error{where + "." + copy.error()};
  auto device = unsigned_field(value, "device_bytes");
  if (!device) return Error{where + "." + device.error()};
  return OffloadedShare{std::move(*micro), *copy, *device};
}

}  // namespace

Expected<std::vector<Configuration>> configurations_from_json(const nlohmann::json& value) {
  if (!value.is_array()) return Error{": " + describe(value) + " is not a list of configurations"};
  std::vector<Configuration> plan;
  plan.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    // append(), not "[" + ...: GCC 12 warns falsely (-Wrestrict) about operator+ there.
    const std::string where = std::string("[").append(std::to_string(i)).append("]");
    const auto& configuration = value[i];
    if (!configuration.is_object())
      return Error{where + ": " + describe(configuration) + " is not an object"};
    auto micro = micro_list(configuration, where);
    if (!micro) return Error{micro.error()};
    Configuration parsed{std::move(*micro), std::nullopt};
    if (configuration.contains("offload")) {
      auto share = offload_from_json(configuration["offload"], where + ".offload");
      if (!share) return Error{share.error()};
      parsed.offload = std::move(*share);
    }
    plan.push_back(std::move(parsed));
  }
  return plan;
}

std::string configurations_to_text(const std::vector<Configuration>& plan) {
  return configurations_to_json(plan).dump();
}

namespace {

// Nesting deeper than a plan's own ([{"offload": {"micro": [{...}]}}] is 5 levels) is garbage:
// rejected before parsing, so that a poisoned row cannot make the parser build a huge tree.
bool nested_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

Expected<std::vector<Configuration>> configurations_from_text(std::string_view text) {
  if (nested_deeper_than(text, 8)) return Error{": nested too deeply"};
  // No exceptions: a garbage row is an ordinary outcome here, not an error.
  auto value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return Error{": not valid JSON"};
  return configurations_from_json(value);
}

}  // namespace ucudnn::db
