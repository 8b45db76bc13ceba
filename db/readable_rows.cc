#include "db/readable_rows.h"

#include "db/database_file.h"
#include "db/row_problems.h"
#include "db/row_reader.h"

namespace ucudnn::db {

Expected<ReadableRows> read_readable_rows(const std::string& path, const sqlite::LockWait& wait) {
  auto from = open_or_error(path, Access::kReadOnly, reading_past_damage(wait));
  if (!from) return Error{from.error()};
  ReadableRows rows;
  rows.unreadable = for_each_measurement(from.value().connection,
                                         [&](std::int64_t, Expected<MeasurementRow> row) {
                                           if (row && !measurement_problem(*row))
                                             rows.measurements.push_back(std::move(row).value());
                                           else
                                             ++rows.invalid_rows_skipped;
                                         });
  for (auto& stretch :
       for_each_plan(from.value().connection, [&](std::int64_t, Expected<PlanRow> row) {
         if (row && !plan_problem(*row))
           rows.plans.push_back(std::move(row).value());
         else
           ++rows.invalid_rows_skipped;
       }))
    rows.unreadable.push_back(std::move(stretch));
  return rows;
}

}  // namespace ucudnn::db
