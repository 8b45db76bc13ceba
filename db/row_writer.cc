#include "db/row_writer.h"

#include <vector>

#include "core/limit_range.h"
#include "db/configuration_json.h"
#include "db/fingerprint_fields.h"

namespace ucudnn::db {

namespace {

// ?14 is the conflict rule: 0 replace, 1 newer or equal, 2 strictly newer.
constexpr const char* kUpsertMeasurement = R"sql(
INSERT INTO measurements (fingerprint_id, kernel_key, kernel_hash, backend, algorithm,
                          micro_batch, status, time_ms, min_ms, max_ms, repeats,
                          workspace_bytes, measured_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
ON CONFLICT (fingerprint_id, kernel_key, backend, algorithm) DO UPDATE SET
  kernel_hash = excluded.kernel_hash, micro_batch = excluded.micro_batch,
  status = excluded.status, time_ms = excluded.time_ms, min_ms = excluded.min_ms,
  max_ms = excluded.max_ms, repeats = excluded.repeats,
  workspace_bytes = excluded.workspace_bytes, measured_at = excluded.measured_at
WHERE ?14 = 0 OR typeof(measurements.measured_at) <> 'integer'
   OR excluded.measured_at > measurements.measured_at
   OR (?14 = 1 AND excluded.measured_at = measurements.measured_at)
)sql";

constexpr const char* kUpsertPlan = R"sql(
INSERT INTO plans (fingerprint_id, subject, policy, workspace_limit, mode, configurations,
                   created_at, valid_below)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9)
ON CONFLICT (fingerprint_id, subject, policy, workspace_limit, mode) DO UPDATE SET
  configurations = excluded.configurations, created_at = excluded.created_at,
  valid_below = excluded.valid_below
WHERE ?8 = 0 OR typeof(plans.created_at) <> 'integer'
   OR excluded.created_at > plans.created_at
   OR (?8 = 1 AND excluded.created_at = plans.created_at)
)sql";

std::int64_t rule_of(Conflict conflict) {
  switch (conflict) {
    case Conflict::kReplace:
      return 0;
    case Conflict::kNewerOrEqual:
      return 1;
    case Conflict::kNewer:
      return 2;
  }
  return 2;
}

// Whether a row made at `incoming` replaces one made at `stored` under the rule (as the upserts'
// WHERE clauses decide it).
bool wins(Conflict conflict, std::int64_t incoming, std::int64_t stored) {
  switch (conflict) {
    case Conflict::kReplace:
      return true;
    case Conflict::kNewerOrEqual:
      return incoming >= stored;
    case Conflict::kNewer:
      return incoming > stored;
  }
  return false;
}

}  // namespace

RowWriter::RowWriter(sqlite::Connection& connection)
    : connection_(connection),
      insert_fingerprint_(
          connection.prepare("INSERT INTO fingerprints (canonical, fields) VALUES (?1, ?2) "
                             "ON CONFLICT (canonical) DO NOTHING")),
      select_fingerprint_(connection.prepare("SELECT id FROM fingerprints WHERE canonical = ?1")),
      upsert_measurement_(connection.prepare(kUpsertMeasurement)),
      upsert_plan_(connection.prepare(kUpsertPlan)),
      select_subject_plans_(connection.prepare(
          "SELECT id, workspace_limit, valid_below, created_at FROM plans WHERE fingerprint_id = "
          "?1 AND subject = ?2 AND policy = ?3 AND mode = ?4 AND workspace_limit <> ?5")),
      delete_plan_(connection.prepare("DELETE FROM plans WHERE id = ?1")),
      delete_measurement_(connection.prepare("DELETE FROM measurements WHERE id = ?1")) {}

std::int64_t RowWriter::fingerprint_id(const std::string& canonical) {
  {
    auto cursor = select_fingerprint_.start();
    cursor.bind(1, canonical);
    if (cursor.step()) return cursor.integer(0);
  }
  insert_fingerprint_.start().bind(1, canonical).bind(2, fingerprint_fields_json(canonical)).run();
  auto cursor = select_fingerprint_.start();
  cursor.bind(1, canonical);
  if (!cursor.step()) throw sqlite::Error(SQLITE_INTERNAL, "a fingerprint row vanished");
  return cursor.integer(0);
}

bool RowWriter::put(const MeasurementRow& row, Conflict conflict) {
  const std::int64_t fingerprint = fingerprint_id(row.fingerprint);
  auto cursor = upsert_measurement_.start();
  cursor.bind(1, fingerprint)
      .bind(2, row.kernel_key)
      .bind(3, row.kernel_hash)
      .bind(4, row.backend)
      .bind(5, row.algorithm)
      .bind(6, row.micro_batch)
      .bind(7, status_of(row))
      .bind(13, row.measured_at)
      .bind(14, rule_of(conflict));
  if (const auto& m = row.measurement) {
    cursor.bind(8, m->time_ms)
        .bind(9, m->min_ms)
        .bind(10, m->max_ms)
        .bind(11, static_cast<std::int64_t>(m->repeats))
        .bind(12, static_cast<std::int64_t>(m->workspace_bytes));
  } else {
    for (int column = 8; column <= 12; ++column) cursor.bind_null(column);
  }
  cursor.run();
  return connection_.changes() > 0;
}

bool RowWriter::put(const PlanRow& row, Conflict conflict) {
  const std::string configurations = configurations_to_text(row.configurations);
  const std::int64_t fingerprint = fingerprint_id(row.key.fingerprint);
  std::vector<std::int64_t> overlapped;
  {
    auto cursor = select_subject_plans_.start();
    cursor.bind(1, fingerprint)
        .bind(2, row.key.subject)
        .bind(3, row.key.policy)
        .bind(4, row.key.mode)
        .bind(5, static_cast<std::int64_t>(row.key.workspace_limit));
    while (cursor.step()) {
      const auto from = static_cast<std::uint64_t>(cursor.integer(1));
      const LimitRange stored{from, cursor.is_integer(2)
                                        ? static_cast<std::uint64_t>(cursor.integer(2))
                                        : LimitRange::exactly(from).below};
      if (!row.limits().overlaps(stored)) continue;
      if (cursor.is_integer(3) && !wins(conflict, row.created_at, cursor.integer(3))) return false;
      overlapped.push_back(cursor.integer(0));
    }
  }
  upsert_plan_.start()
      .bind(1, fingerprint)
      .bind(2, row.key.subject)
      .bind(3, row.key.policy)
      .bind(4, static_cast<std::int64_t>(row.key.workspace_limit))
      .bind(5, row.key.mode)
      .bind(6, configurations)
      .bind(7, row.created_at)
      .bind(8, rule_of(conflict))
      .bind(9, static_cast<std::int64_t>(row.valid_below))
      .run();
  if (connection_.changes() == 0) return false;
  for (const std::int64_t id : overlapped) delete_plan_.start().bind(1, id).run();
  return true;
}

void RowWriter::remove_measurement(std::int64_t id) {
  delete_measurement_.start().bind(1, id).run();
}

}  // namespace ucudnn::db
