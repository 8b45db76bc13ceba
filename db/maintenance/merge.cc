// `ucudnn db merge` (commands.h): one database's rows into another's, the later row winning.
#include <filesystem>

#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "db/maintenance/row_problems.h"
#include "db/row_reader.h"
#include "db/row_writer.h"

namespace ucudnn::db {

namespace {

struct SourceRows {
  MergeResult result;
  std::vector<MeasurementRow> measurements;
  std::vector<PlanRow> plans;
};

// Everything `source` holds, a garbage row, or one `db check` reports (row_problems.h: a time
// ahead, which would win every later merge), skipped rather than copied, and in a damaged file
// what can be read (the way to rescue a database the store set aside); read before the target
// is written, so that no source's read lock is held then.
Expected<SourceRows> read_source(const std::string& source, const std::string& target,
                                 const sqlite::LockWait& wait) {
  std::error_code ignored;
  if (std::filesystem::equivalent(source, target, ignored))
    return Error{source + " and " + target + " are the same file"};
  auto from = open_or_error(source, Access::kReadOnly, reading_past_damage(wait));
  if (!from) return Error{from.error()};
  SourceRows rows;
  auto& unreadable = rows.result.unreadable;
  unreadable = for_each_measurement(from.value().connection,
                                    [&](std::int64_t, Expected<MeasurementRow> row) {
                                      if (row && !measurement_problem(*row))
                                        rows.measurements.push_back(std::move(row).value());
                                      else
                                        ++rows.result.invalid_rows_skipped;
                                    });
  for (auto& stretch :
       for_each_plan(from.value().connection, [&](std::int64_t, Expected<PlanRow> row) {
         if (row && !plan_problem(*row))
           rows.plans.push_back(std::move(row).value());
         else
           ++rows.result.invalid_rows_skipped;
       }))
    unreadable.push_back(std::move(stretch));
  rows.result.measurements_read = rows.measurements.size();
  rows.result.plans_read = rows.plans.size();
  return rows;
}

}  // namespace

Expected<std::vector<MergeResult>> merge_databases(const std::vector<std::string>& sources,
                                                   const std::string& target,
                                                   const sqlite::LockWait& wait) {
  std::string source_being_read;
  try {
    std::vector<SourceRows> read;
    for (const auto& source : sources) {
      source_being_read = source;
      auto rows = read_source(source, target, wait);
      if (!rows) return Error{rows.error()};
      read.push_back(std::move(rows).value());
    }
    source_being_read.clear();
    auto into = open_or_error(target, Access::kReadWrite, OpenOptions{wait});
    if (!into) return Error{into.error()};
    sqlite::write_transaction(into.value().connection, [&] {
      RowWriter writer(into.value().connection);
      for (auto& source : read) {
        MergeResult& result = source.result;
        result.measurements_written = result.plans_written = 0;  // a retry starts over
        for (const auto& row : source.measurements)
          result.measurements_written += writer.put(row, Conflict::kNewer);
        for (const auto& row : source.plans)
          result.plans_written += writer.put(row, Conflict::kNewer);
      }
    });
    std::vector<MergeResult> results;
    for (const auto& source : read) results.push_back(source.result);
    return results;
  } catch (const std::exception& error) {
    const std::string what = source_being_read.empty() ? std::string("merging into ") + target
                                                       : "reading " + source_being_read;
    return Error{what + ": " +
                 (source_being_read.empty() ? write_error(target, error) : error.what())};
  }
}

Expected<MergeResult> merge_database(const std::string& source, const std::string& target,
                                     const sqlite::LockWait& wait) {
  auto results = merge_databases({source}, target, wait);
  if (!results) return Error{results.error()};
  return results->front();
}

}  // namespace ucudnn::db
