// `ucudnn db merge` (commands.h): one database's rows into another's, the later row winning.
#include <filesystem>

#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "db/row_reader.h"
#include "db/row_writer.h"

namespace ucudnn::db {

Expected<MergeResult> merge_database(const std::string& source, const std::string& target) {
  try {
    std::error_code ignored;
    if (std::filesystem::equivalent(source, target, ignored))
      return Error{source + " and " + target + " are the same file"};
    auto from = open_or_error(source, Access::kReadOnly);
    if (!from) return Error{from.error()};

    // Read everything first: the source's read lock is gone before the target is written,
    // and a garbage row is skipped rather than copied.
    MergeResult result;
    std::vector<MeasurementRow> measurements;
    std::vector<PlanRow> plans;
    for_each_measurement(from.value().connection, [&](std::int64_t, Expected<MeasurementRow> row) {
      if (row)
        measurements.push_back(std::move(row).value());
      else
        ++result.invalid_rows_skipped;
    });
    for_each_plan(from.value().connection, [&](std::int64_t, Expected<PlanRow> row) {
      if (row)
        plans.push_back(std::move(row).value());
      else
        ++result.invalid_rows_skipped;
    });
    result.measurements_read = measurements.size();
    result.plans_read = plans.size();

    auto into = open_or_error(target, Access::kReadWrite);
    if (!into) return Error{into.error()};
    sqlite::write_transaction(into.value().connection, [&] {
      RowWriter writer(into.value().connection);
      result.measurements_written = result.plans_written = 0;  // a retry starts over
      for (const auto& row : measurements)
        result.measurements_written += writer.put(row, Conflict::kNewer);
      for (const auto& row : plans) result.plans_written += writer.put(row, Conflict::kNewer);
    });
    return result;
  } catch (const std::exception& error) {
    return Error{"merging " + source + " into " + target + ": " + error.what()};
  }
}

}  // namespace ucudnn::db
