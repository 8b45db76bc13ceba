#pragma once
// What a database file, damaged or not, still holds that may be copied into another: every row
// SQLite can reach past damaged pages and whose fields and rules hold (row_problems.h: a time
// ahead would win every later merge). `ucudnn db merge` copies them; the store copies those of a
// damaged file it sets aside into the fresh one that takes its place.
#include <cstddef>
#include <string>
#include <vector>

#include "core/expected.h"
#include "db/damaged_scan.h"
#include "db/rows.h"
#include "db/sqlite.h"

namespace ucudnn::db {

struct ReadableRows {
  std::vector<MeasurementRow> measurements;
  std::vector<PlanRow> plans;
  std::size_t invalid_rows_skipped = 0;  // rows of the file `db check` reports
  Unreadable unreadable;                 // what damage hides
};

// Read-only, past damage. An error where the file cannot be opened at all.
Expected<ReadableRows> read_readable_rows(const std::string& path, const sqlite::LockWait& wait);

}  // namespace ucudnn::db
