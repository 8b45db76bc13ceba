#pragma once
// Reading rows back from the tables. Every value is checked for its type and range: a row
// that fails comes back as an Error saying why, which the store treats as absent and `check`
// reports. Reads never change the database.
#include <cstdint>
#include <functional>
#include <optional>

#include "core/expected.h"
#include "db/damaged_scan.h"
#include "db/rows.h"
#include "db/sqlite.h"

namespace ucudnn::db {

// Every row of a table in rowid order, garbage included (as an Error); in a damaged file, every
// row that can be read, and what could not (damaged_scan.h).
[[nodiscard]] Unreadable for_each_measurement(
    sqlite::Connection& connection,
    const std::function<void(std::int64_t id, Expected<MeasurementRow>)>& visit);
[[nodiscard]] Unreadable for_each_plan(
    sqlite::Connection& connection,
    const std::function<void(std::int64_t id, Expected<PlanRow>)>& visit);

// Every row of one device (its canonical fingerprint text), garbage included.
void for_each_measurement_of(
    sqlite::Connection& connection, const std::string& fingerprint,
    const std::function<void(std::int64_t id, Expected<MeasurementRow>)>& visit);
void for_each_plan_of(sqlite::Connection& connection, const std::string& fingerprint,
                      const std::function<void(std::int64_t id, Expected<PlanRow>)>& visit);

// Whether any valid row of a damaged file can be read (what `db merge` would copy): not of a
// truncated file (SQLite refuses its schema), nor where the fingerprints every row refers to
// are lost. Reads the whole file.
bool any_row_readable(const std::string& path);

// One measurement row by its rowid: nullopt when there is none.
std::optional<Expected<MeasurementRow>> measurement_by_id(sqlite::Connection& connection,
                                                          std::int64_t id);

}  // namespace ucudnn::db
