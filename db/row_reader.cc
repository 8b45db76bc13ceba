#include "db/row_reader.h"

#include <limits>

#include "db/configuration_json.h"
#include "db/schema.h"

namespace ucudnn::db {

namespace {

// A LEFT JOIN, so that a row pointing at a missing fingerprint is seen (and rejected).
constexpr const char* kMeasurementColumns =
    "SELECT f.canonical, m.kernel_key, m.kernel_hash, m.backend, m.algorithm, m.micro_batch, "
    "m.status, m.time_ms, m.min_ms, m.max_ms, m.repeats, m.workspace_bytes, m.measured_at, m.id "
    "FROM measurements m LEFT JOIN fingerprints f ON f.id = m.fingerprint_id";
// A file of schema version 1, read without migrating it (read-only), has no valid_below.
std::string plan_columns(sqlite::Connection& connection) {
  return std::string(
             "SELECT f.canonical, p.subject, p.policy, p.workspace_limit, p.mode, "
             "p.configurations, p.created_at, p.id, ") +
         (plans_have_limit_ranges(connection) ? "p.valid_below" : "NULL") +
         " FROM plans p LEFT JOIN fingerprints f ON f.id = p.fingerprint_id";
}

constexpr const char* kMeasurementColumnNames[] = {
    "fingerprint", "kernel_key",      "kernel_hash", "backend", "algorithm",
    "micro_batch", "status",          "time_ms",     "min_ms",  "max_ms",
    "repeats",     "workspace_bytes", "measured_at"};
constexpr const char* kPlanColumnNames[] = {"fingerprint",     "subject", "policy",
                                            "workspace_limit", "mode",    "configurations",
                                            "created_at",      "(rowid)", "valid_below"};

Error wrong_type(const char* column, const char* expected) {
  return Error{std::string(column) + ": not " + expected};
}

Error no_fingerprint() {
  return Error{"fingerprint_id: refers to no fingerprint row"};
}

Expected<MeasurementRow> read_measurement(const sqlite::Cursor& row) {
  if (row.type(0) == SQLITE_NULL) return no_fingerprint();
  for (int column : {0, 1, 2, 3, 4, 6})
    if (!row.is_text(column)) return wrong_type(kMeasurementColumnNames[column], "text");
  for (int column : {5, 12})
    if (!row.is_integer(column)) return wrong_type(kMeasurementColumnNames[column], "an integer");
  MeasurementRow result;
  result.fingerprint = row.text(0);
  result.kernel_key = row.text(1);
  result.kernel_hash = row.text(2);
  result.backend = row.text(3);
  result.algorithm = row.text(4);
  result.micro_batch = row.integer(5);
  result.measured_at = row.integer(12);
  const std::string status = row.text(6);
  if (status == "supported") {
    for (int column : {7, 8, 9})
      if (!row.is_number(column)) return wrong_type(kMeasurementColumnNames[column], "a number");
    for (int column : {10, 11})
      if (!row.is_integer(column)) return wrong_type(kMeasurementColumnNames[column], "an integer");
    const std::int64_t repeats = row.integer(10), workspace = row.integer(11);
    if (repeats < 0 || repeats > std::numeric_limits<int>::max())
      return Error{"repeats: " + std::to_string(repeats) + " is out of range"};
    if (workspace < 0) return Error{"workspace_bytes: " + std::to_string(workspace) + " < 0"};
    result.measurement = Measurement{row.real(7), static_cast<std::uint64_t>(workspace),
                                     row.real(8), row.real(9), static_cast<int>(repeats)};
  } else if (status != "unsupported") {
    return Error{"status: '" + status + "' is neither 'supported' nor 'unsupported'"};
  }
  if (auto error = row_error(result)) return Error{*error};
  return result;
}

Expected<PlanRow> read_plan(const sqlite::Cursor& row) {
  if (row.type(0) == SQLITE_NULL) return no_fingerprint();
  for (int column : {0, 1, 2, 4, 5})
    if (!row.is_text(column)) return wrong_type(kPlanColumnNames[column], "text");
  for (int column : {3, 6})
    if (!row.is_integer(column)) return wrong_type(kPlanColumnNames[column], "an integer");
  auto configurations = configurations_from_text(row.text(5));
  if (!configurations) return Error{"configurations" + configurations.error()};
  const auto from = static_cast<std::uint64_t>(row.integer(3));
  std::uint64_t below = LimitRange::exactly(from).below;  // a row of schema version 1
  if (row.type(8) != SQLITE_NULL) {
    if (!row.is_integer(8)) return wrong_type(kPlanColumnNames[8], "an integer");
    below = static_cast<std::uint64_t>(row.integer(8));
  }
  PlanRow result{PlanKey{row.text(0), row.text(1), row.text(2), from, row.text(4)},
                 std::move(configurations).value(), row.integer(6), below};
  if (auto error = row_error(result)) return Error{*error};
  return result;
}

}  // namespace

Unreadable for_each_measurement(
    sqlite::Connection& connection,
    const std::function<void(std::int64_t id, Expected<MeasurementRow>)>& visit) {
  return scan_past_damage(
      connection, "measurements",
      std::string(kMeasurementColumns) + " WHERE m.id >= ?1 ORDER BY m.id", 13,
      [&](const sqlite::Cursor& row) { visit(row.integer(13), read_measurement(row)); });
}

Unreadable for_each_plan(sqlite::Connection& connection,
                         const std::function<void(std::int64_t id, Expected<PlanRow>)>& visit) {
  return scan_past_damage(
      connection, "plans", plan_columns(connection) + " WHERE p.id >= ?1 ORDER BY p.id", 7,
      [&](const sqlite::Cursor& row) { visit(row.integer(7), read_plan(row)); });
}

void for_each_measurement_of(
    sqlite::Connection& connection, const std::string& fingerprint,
    const std::function<void(std::int64_t id, Expected<MeasurementRow>)>& visit) {
  auto statement = connection.prepare(
      std::string(kMeasurementColumns) +
      " WHERE m.fingerprint_id = (SELECT id FROM fingerprints WHERE canonical = ?1)");
  auto cursor = statement.start();
  cursor.bind(1, fingerprint);
  while (cursor.step()) visit(cursor.integer(13), read_measurement(cursor));
}

void for_each_plan_of(sqlite::Connection& connection, const std::string& fingerprint,
                      const std::function<void(std::int64_t id, Expected<PlanRow>)>& visit) {
  auto statement = connection.prepare(
      plan_columns(connection) +
      " WHERE p.fingerprint_id = (SELECT id FROM fingerprints WHERE canonical = ?1)");
  auto cursor = statement.start();
  cursor.bind(1, fingerprint);
  while (cursor.step()) visit(cursor.integer(7), read_plan(cursor));
}

bool any_row_readable(const std::string& path) {
  try {
    auto connection = sqlite::Connection::open(path, SQLITE_OPEN_READONLY);
    connection.relax_schema_checks();  // a file cut short, as `db merge` reads it
    bool any = false;
    (void)for_each_measurement(connection,
                               [&](std::int64_t, Expected<MeasurementRow> row) { any |= !!row; });
    (void)for_each_plan(connection, [&](std::int64_t, Expected<PlanRow> row) { any |= !!row; });
    return any;
  } catch (const sqlite::Error&) {
    return false;
  }
}

std::optional<Expected<MeasurementRow>> measurement_by_id(sqlite::Connection& connection,
                                                          std::int64_t id) {
  auto statement = connection.prepare(std::string(kMeasurementColumns) + " WHERE m.id = ?1");
  auto cursor = statement.start();
  cursor.bind(1, id);
  if (!cursor.step()) return std::nullopt;
  return read_measurement(cursor);
}

}  // namespace ucudnn::db
