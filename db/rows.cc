#include "db/rows.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace ucudnn::db {

std::string kernel_hash_of(std::string_view kernel_key) {
  return kernel_hash_hex(kernel_key);
}

MeasurementRow to_row(const MeasurementRecord& record, std::int64_t now) {
  MeasurementRow row;
  row.fingerprint = record.fingerprint;
  row.kernel_key = record.kernel.to_string();
  row.kernel_hash = kernel_hash_of(row.kernel_key);
  row.backend = record.backend;
  row.algorithm = record.algorithm;
  row.micro_batch = record.kernel.problem.batch();
  row.measurement = record.measurement;
  if (row.measurement)
    row.measurement->workspace_bytes = std::min<std::uint64_t>(
        row.measurement->workspace_bytes,
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
  row.measured_at = record.measured_at != 0 ? record.measured_at : now;
  return row;
}

MeasurementRecord to_record(const MeasurementRow& row, const KernelKey& kernel) {
  return MeasurementRecord{row.fingerprint, kernel,          row.backend,
                           row.algorithm,   row.measurement, row.measured_at};
}

namespace {

bool good_time(double ms) {
  return std::isfinite(ms) && ms >= 0;
}

}  // namespace

std::optional<std::string> row_error(const MeasurementRow& row) {
  if (row.micro_batch < 0) return "micro_batch: " + std::to_string(row.micro_batch) + " < 0";
  if (row.measured_at < 0) return "measured_at: " + std::to_string(row.measured_at) + " < 0";
  if (const auto& m = row.measurement) {
    if (!good_time(m->time_ms)) return "time_ms: " + std::to_string(m->time_ms) + " is not >= 0";
    if (!good_time(m->min_ms)) return "min_ms: " + std::to_string(m->min_ms) + " is not >= 0";
    if (!good_time(m->max_ms)) return "max_ms: " + std::to_string(m->max_ms) + " is not >= 0";
    if (m->repeats < 0) return "repeats: " + std::to_string(m->repeats) + " < 0";
    if (m->workspace_bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return "workspace_bytes: " + std::to_string(m->workspace_bytes) + " is too large";
  }
  return std::nullopt;
}

std::optional<std::string> row_error(const PlanRow& row) {
  if (row.created_at < 0) return "created_at: " + std::to_string(row.created_at) + " < 0";
  if (!row.limits().contains(row.key.workspace_limit))
    return "valid_below: " + std::to_string(row.valid_below) + " is not above workspace_limit " +
           std::to_string(row.key.workspace_limit);
  for (std::size_t i = 0; i < row.configurations.size(); ++i)
    for (std::size_t j = 0; j < row.configurations[i].micro.size(); ++j) {
      const auto& m = row.configurations[i].micro[j];
      const std::string where =
          "configurations[" + std::to_string(i) + "].micro[" + std::to_string(j) + "].";
      if (m.batch <= 0) return where + "batch: " + std::to_string(m.batch) + " is not >= 1";
      if (!good_time(m.time_ms))
        return where + "time_ms: " + std::to_string(m.time_ms) + " is not >= 0";
    }
  return std::nullopt;
}

}  // namespace ucudnn::db
