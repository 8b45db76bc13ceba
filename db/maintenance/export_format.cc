#include "db/maintenance/export_format.h"

#include <limits>

#include "core/batch_size_policy.h"
#include "core/device_fingerprint.h"
#include "core/plan_mode.h"
#include "db/configuration_json.h"
#include "db/fingerprint_fields.h"
#include "db/json_fields.h"
#include "db/schema.h"
#include "db/sqlite.h"

namespace ucudnn::db {

nlohmann::json header_json(const char* layout) {
  nlohmann::json header = {{"format", kExportFormat},
                           {"layout", layout},
                           {"schema_version", schema_version()},
                           {"application_id", kApplicationId},
                           {"ucudnn_version", kUcudnnVersion},
                           {"exported_at", sqlite::unix_now()}};
  if (std::string_view(layout) == "lines") header["ends_with"] = "end";
  return header;
}

nlohmann::json end_json(std::size_t fingerprints, std::size_t measurements, std::size_t plans) {
  return {{"type", "end"},
          {"fingerprints", fingerprints},
          {"measurements", measurements},
          {"plans", plans}};
}

nlohmann::json fingerprint_json(const std::string& canonical) {
  nlohmann::json fields = nlohmann::json::array();
  for (auto& [name, value] : fingerprint_fields(canonical)) fields.push_back({name, value});
  return {{"canonical", canonical}, {"fields", std::move(fields)}};
}

nlohmann::json to_json(const MeasurementRow& row) {
  nlohmann::json value = {{"fingerprint", row.fingerprint}, {"kernel_key", row.kernel_key},
                          {"kernel_hash", row.kernel_hash}, {"backend", row.backend},
                          {"algorithm", row.algorithm},     {"micro_batch", row.micro_batch},
                          {"status", status_of(row)}};
  if (const auto& m = row.measurement) {
    value["time_ms"] = m->time_ms;
    value["min_ms"] = m->min_ms;
    value["max_ms"] = m->max_ms;
    value["repeats"] = m->repeats;
    value["workspace_bytes"] = m->workspace_bytes;
  }
  value["measured_at"] = row.measured_at;
  return value;
}

nlohmann::json to_json(const PlanRow& row) {
  return {{"fingerprint", row.key.fingerprint},
          {"subject", row.key.subject},
          {"policy", row.key.policy},
          {"workspace_limit", row.key.workspace_limit},
          {"mode", row.key.mode},
          {"valid_below", row.valid_below},
          {"configurations", configurations_to_json(row.configurations)},
          {"created_at", row.created_at}};
}

// Each step returns early with the first bad field.
#define UCUDNN_READ(variable, expression) \
  auto variable = (expression);           \
  if (!variable) return Error{variable.error()};

constexpr TextField<MeasurementRow> kMeasurementTexts[] = {
    {"fingerprint", &MeasurementRow::fingerprint},
    {"kernel_key", &MeasurementRow::kernel_key},
    {"kernel_hash", &MeasurementRow::kernel_hash},
    {"backend", &MeasurementRow::backend},
    {"algorithm", &MeasurementRow::algorithm}};

Expected<MeasurementRow> measurement_from_json(const nlohmann::json& value) {
  if (!value.is_object()) return Error{describe(value) + " is not an object"};
  // "type" names the row in the lines layout.
  if (auto unknown = unknown_field(value,
                                   {"type", "fingerprint", "kernel_key", "kernel_hash", "backend",
                                    "algorithm", "micro_batch", "status", "time_ms", "min_ms",
                                    "max_ms", "repeats", "workspace_bytes", "measured_at"},
                                   "a measurement"))
    return Error{*unknown};
  MeasurementRow row;
  if (auto error = read_text_fields(value, kMeasurementTexts, row)) return Error{*error};
  UCUDNN_READ(micro_batch, integer_field(value, "micro_batch", 0));
  UCUDNN_READ(status, string_field(value, "status"));
  UCUDNN_READ(measured_at, integer_field(value, "measured_at", 0));
  if (row.kernel_hash != kernel_hash_of(row.kernel_key))
    return Error{"kernel_hash: '" + row.kernel_hash + "' is not the hash of kernel_key ('" +
                 kernel_hash_of(row.kernel_key) + "')"};
  row.micro_batch = *micro_batch;
  row.measured_at = *measured_at;
  if (*status == "supported") {
    UCUDNN_READ(time, non_negative_number_field(value, "time_ms"));
    UCUDNN_READ(min, non_negative_number_field(value, "min_ms"));
    UCUDNN_READ(max, non_negative_number_field(value, "max_ms"));
    UCUDNN_READ(repeats, integer_field(value, "repeats", 0));
    UCUDNN_READ(workspace, integer_field(value, "workspace_bytes", 0));
    if (*repeats > std::numeric_limits<int>::max())
      return Error{"repeats: " + std::to_string(*repeats) + " is too large"};
    row.measurement = Measurement{*time, static_cast<std::uint64_t>(*workspace), *min, *max,
                                  static_cast<int>(*repeats)};
  } else if (*status != "unsupported") {
    return Error{"status: " + describe(value["status"]) +
                 " is neither \"supported\" nor \"unsupported\""};
  }
  if (auto error = row_error(row)) return Error{*error};
  return row;
}

constexpr TextField<PlanKey> kPlanKeyTexts[] = {{"fingerprint", &PlanKey::fingerprint},
                                                {"subject", &PlanKey::subject},
                                                {"policy", &PlanKey::policy}};

Expected<PlanRow> plan_from_json(const nlohmann::json& value) {
  if (!value.is_object()) return Error{describe(value) + " is not an object"};
  if (auto unknown = unknown_field(value,
                                   {"type", "fingerprint", "subject", "policy", "workspace_limit",
                                    "mode", "valid_below", "configurations", "created_at"},
                                   "a plan"))
    return Error{*unknown};
  PlanKey key;
  if (auto error = read_text_fields(value, kPlanKeyTexts, key)) return Error{*error};
  UCUDNN_READ(limit, unsigned_field(value, "workspace_limit"));
  UCUDNN_READ(mode, string_field(value, "mode"));
  UCUDNN_READ(created_at, integer_field(value, "created_at", 0));
  // The exact spelling matters: plans are looked up by it.
  auto parsed_policy = parse_batch_size_policy(key.policy);
  if (!parsed_policy || name_of(*parsed_policy) != key.policy)
    return Error{"policy: '" + key.policy + "' is not a batch size policy (" +
                 batch_size_policy_names() + ")"};
  if (!is_plan_mode(*mode))
    return Error{"mode: '" + *mode +
                 "' is not a plan mode (WR, WD, WR+CPU:on, WR+CPU:auto, each perhaps "
                 "+deterministic)"};
  if (!value.contains("configurations")) return Error{"configurations: missing"};
  auto configurations = configurations_from_json(value["configurations"]);
  if (!configurations) return Error{"configurations" + configurations.error()};
  // Files of schema version 1 have no valid_below: their plans answer their exact limit.
  std::uint64_t below = LimitRange::exactly(*limit).below;
  if (value.contains("valid_below")) {
    UCUDNN_READ(valid_below, unsigned_field(value, "valid_below"));
    below = *valid_below;
  }
  key.workspace_limit = *limit;
  key.mode = *mode;
  PlanRow row{std::move(key), std::move(configurations).value(), *created_at, below};
  if (auto error = row_error(row)) return Error{*error};
  return row;
}

#undef UCUDNN_READ

std::optional<std::string> header_error(const nlohmann::json& header) {
  if (!header.is_object()) return describe(header) + " is not an export header";
  auto format = string_field(header, "format");
  if (!format) return format.error();
  if (*format != kExportFormat)
    return "format: '" + *format + "' is not " + std::string(kExportFormat);
  auto version = integer_field(header, "schema_version", 1);
  if (!version) return version.error();
  if (*version > schema_version())
    return "schema_version: " + std::to_string(*version) + " is newer than this ucudnn's (" +
           std::to_string(schema_version()) + ")";
  return std::nullopt;
}

}  // namespace ucudnn::db
