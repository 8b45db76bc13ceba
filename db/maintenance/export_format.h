#pragma once
// The rows of a database as JSON, for `ucudnn db export` and `import`. A file says what it
// is: {"format": "ucudnn-database-export", "layout": "document" | "lines",
// "schema_version": 1, ...}. In the document layout the rows are in the arrays
// "fingerprints", "measurements" and "plans"; in the lines layout that header is the first
// line and every further line is one row with "type": "fingerprint" | "measurement" | "plan",
// then (where the header says "ends_with": "end") a last line {"type": "end", "fingerprints",
// "measurements", "plans"} with the rows' counts: a file cut short at a line boundary is
// still whole JSON lines, and only its missing end tells.
//
// measurement: {"fingerprint", "kernel_key", "kernel_hash", "backend", "algorithm",
//               "micro_batch", "status": "supported" | "unsupported", "time_ms", "min_ms",
//               "max_ms", "repeats", "workspace_bytes" (the last five when supported),
//               "measured_at" (Unix seconds)}
// plan:        {"fingerprint", "subject", "policy", "workspace_limit", "valid_below",
//               "mode": "WR" | "WD", "configurations" (as in configuration_json.h),
//               "created_at"}: the plan answers every limit in [workspace_limit,
//               valid_below) (18446744073709551615: no upper end); files without
//               valid_below (schema version 1) answer their exact limit only.
// fingerprint: {"canonical", "fields": [[name, value], ...]} (informational: rows name their
//               fingerprint by its canonical text)
#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "db/rows.h"

namespace ucudnn::db {

inline constexpr const char* kExportFormat = "ucudnn-database-export";

nlohmann::json header_json(const char* layout);
// The lines layout's last line, after `fingerprints`, `measurements` and `plans` rows.
nlohmann::json end_json(std::size_t fingerprints, std::size_t measurements, std::size_t plans);
nlohmann::json fingerprint_json(const std::string& canonical);
nlohmann::json to_json(const MeasurementRow& row);
nlohmann::json to_json(const PlanRow& row);

// Every field is checked; the error names it and its value, e.g. "time_ms: -1 is not a
// finite number >= 0".
Expected<MeasurementRow> measurement_from_json(const nlohmann::json& value);
Expected<PlanRow> plan_from_json(const nlohmann::json& value);
// The header's format and schema version (not newer than this build's).
std::optional<std::string> header_error(const nlohmann::json& header);

}  // namespace ucudnn::db
