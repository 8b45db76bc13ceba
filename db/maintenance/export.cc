// `ucudnn db export` (commands.h): every row as JSON, in the format of export_format.h.
#include <algorithm>
#include <ostream>

#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "db/maintenance/export_format.h"
#include "db/row_problems.h"
#include "db/row_reader.h"

namespace ucudnn::db {

namespace {

std::vector<std::string> fingerprints_of(sqlite::Connection& connection, Unreadable& unreadable) {
  std::vector<std::string> canonical;
  unreadable = scan_past_damage(connection, "fingerprints",
                                "SELECT canonical, id FROM fingerprints WHERE id >= ?1 ORDER BY id",
                                1, [&](const sqlite::Cursor& row) {
                                  if (row.is_text(0)) canonical.push_back(row.text(0));
                                });
  std::sort(canonical.begin(), canonical.end());
  return canonical;
}

void add(Unreadable& to, Unreadable more) {
  for (auto& stretch : more) to.push_back(std::move(stretch));
}

}  // namespace

Expected<ExportResult> export_database(const std::string& path, std::ostream& out,
                                       ExportLayout layout, const sqlite::LockWait& wait) {
  try {
    auto connection = open_or_error(path, Access::kReadOnly, reading_past_damage(wait));
    if (!connection) return Error{connection.error()};
    auto& c = connection.value().connection;
    ExportResult result;
    const bool lines = layout == ExportLayout::kLines;
    // Lines are written as they are read; the document is built whole (a benchmark
    // database is megabytes, not gigabytes).
    nlohmann::json document = header_json(lines ? "lines" : "document");
    auto emit = [&](const char* type, const char* array, nlohmann::json row) {
      if (lines) {
        row["type"] = type;
        out << row.dump() << '\n';
      } else {
        document[array].push_back(std::move(row));
      }
    };
    if (lines)
      out << document.dump() << '\n';
    else
      document["fingerprints"] = document["measurements"] = document["plans"] =
          nlohmann::json::array();

    for (const auto& canonical : fingerprints_of(c, result.unreadable)) {
      emit("fingerprint", "fingerprints", fingerprint_json(canonical));
      ++result.fingerprints;
    }
    // What `db check` reports is skipped, as `db merge` skips it: `db import` would refuse the
    // whole export for one such row, and a backup must restore.
    add(result.unreadable, for_each_measurement(c, [&](std::int64_t, Expected<MeasurementRow> row) {
          if (!row || measurement_problem(*row)) return void(++result.invalid_rows_skipped);
          emit("measurement", "measurements", to_json(*row));
          ++result.measurements;
        }));
    add(result.unreadable, for_each_plan(c, [&](std::int64_t, Expected<PlanRow> row) {
          if (!row || plan_problem(*row)) return void(++result.invalid_rows_skipped);
          emit("plan", "plans", to_json(*row));
          ++result.plans;
        }));
    if (lines)
      out << end_json(result.fingerprints, result.measurements, result.plans).dump() << '\n';
    else
      out << document.dump(2) << '\n';
    out.flush();
    if (!out) return Error{"exporting " + path + ": the output could not be written"};
    return result;
  } catch (const std::exception& error) {
    return Error{"exporting " + path + ": " + error.what()};
  }
}

}  // namespace ucudnn::db
