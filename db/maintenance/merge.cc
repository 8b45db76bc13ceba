// `ucudnn db merge` (commands.h): one database's rows into another's, the later row winning.
#include <filesystem>

#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "db/readable_rows.h"
#include "db/row_writer.h"

namespace ucudnn::db {

namespace {

struct SourceRows {
  MergeResult result;
  std::vector<MeasurementRow> measurements;
  std::vector<PlanRow> plans;
};

// What `source` can give (readable_rows.h), read before the target is written, so that no
// source's read lock is held then.
Expected<SourceRows> read_source(const std::string& source, const std::string& target,
                                 const sqlite::LockWait& wait) {
  std::error_code ignored;
  if (std::filesystem::equivalent(source, target, ignored))
    return Error{source + " and " + target + " are the same file"};
  auto readable = read_readable_rows(source, wait);
  if (!readable) return Error{readable.error()};
  SourceRows rows;
  rows.measurements = std::move(readable.value().measurements);
  rows.plans = std::move(readable.value().plans);
  rows.result.invalid_rows_skipped = readable->invalid_rows_skipped;
  rows.result.unreadable = std::move(readable.value().unreadable);
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
