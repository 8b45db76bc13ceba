#pragma once
// Reading rows back from the tables. Every value is checked for its type and range: a row
// that fails comes back as an Error saying why, which the store treats as absent and `check`
// reports. Reads never change the database.
#include <cstdint>
#include <functional>
#include <optional>

#include "core/expected.h"
#include "db/rows.h"
#include "db/sqlite.h"

namespace ucudnn::db {

// The prepared lookups of one connection (the connection outlives it).
class RowFinder {
 public:
  explicit RowFinder(sqlite::Connection& connection);

  // nullopt: no such row. Otherwise the row, or why it is garbage; `id` gets its rowid.
  std::optional<Expected<MeasurementRow>> find_measurement(const std::string& fingerprint,
                                                           const std::string& kernel_key,
                                                           const std::string& backend,
                                                           const std::string& algorithm,
                                                           std::int64_t* id = nullptr);
  std::optional<Expected<PlanRow>> find_plan(const PlanKey& key);

 private:
  sqlite::Statement measurement_;
  sqlite::Statement plan_;
};

// Every row of a table in rowid order, garbage included (as an Error).
void for_each_measurement(
    sqlite::Connection& connection,
    const std::function<void(std::int64_t id, Expected<MeasurementRow>)>& visit);
void for_each_plan(sqlite::Connection& connection,
                   const std::function<void(std::int64_t id, Expected<PlanRow>)>& visit);

}  // namespace ucudnn::db
