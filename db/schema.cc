#include "db/schema.h"

#include <iterator>

namespace ucudnn::db {

namespace {

// Version 1. Not STRICT tables: sqlite3 tools older than 3.37 on a cluster's login node
// could not read those. Every value is validated when read instead.
//   fingerprints: the canonical DeviceFingerprint text and its fields as JSON
//                 [[name, value], ...] for people and tools.
//   measurements: one benchmark result per (fingerprint, micro-batch kernel, backend,
//                 algorithm); the time columns are NULL when status is 'unsupported'.
//                 workspace_bytes is a non-negative integer.
//   plans:        one plan per (fingerprint, subject, policy, workspace_limit, mode);
//                 workspace_limit is the uint64 limit stored as its two's-complement int64
//                 (so "no limit", UINT64_MAX, is -1); configurations is JSON.
constexpr const char* kVersion1 = R"sql(
CREATE TABLE fingerprints (
  id INTEGER PRIMARY KEY,
  canonical TEXT NOT NULL UNIQUE,
  fields TEXT NOT NULL
);
CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  fingerprint_id INTEGER NOT NULL REFERENCES fingerprints(id),
  kernel_key TEXT NOT NULL,
  kernel_hash TEXT NOT NULL,
  backend TEXT NOT NULL,
  algorithm TEXT NOT NULL,
  micro_batch INTEGER NOT NULL,
  status TEXT NOT NULL,
  time_ms REAL,
  min_ms REAL,
  max_ms REAL,
  repeats INTEGER,
  workspace_bytes INTEGER,
  measured_at INTEGER NOT NULL,
  UNIQUE (fingerprint_id, kernel_key, backend, algorithm)
);
CREATE INDEX measurements_by_hash ON measurements (kernel_hash);
CREATE TABLE plans (
  id INTEGER PRIMARY KEY,
  fingerprint_id INTEGER NOT NULL REFERENCES fingerprints(id),
  subject TEXT NOT NULL,
  policy TEXT NOT NULL,
  workspace_limit INTEGER NOT NULL,
  mode TEXT NOT NULL,
  configurations TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (fingerprint_id, subject, policy, workspace_limit, mode)
);
PRAGMA application_id = 1969448046;
PRAGMA user_version = 1;
)sql";
static_assert(kApplicationId == 1969448046, "the application id in kVersion1 must match");

// Version 2. A plan answers a range of limits, [workspace_limit, valid_below): the limit
// column holds where the range starts. valid_below is a uint64 as its two's-complement int64
// (-1: no upper end); NULL in rows of version 1, which answer their exact limit only.
constexpr const char* kVersion2 = R"sql(
ALTER TABLE plans ADD COLUMN valid_below INTEGER;
PRAGMA user_version = 2;
)sql";

constexpr Migration kMigrations[] = {
    {1, kVersion1},
    {2, kVersion2},
};

}  // namespace

std::span<const Migration> migrations() {
  return kMigrations;
}

int schema_version() {
  return std::size(kMigrations) ? std::rbegin(kMigrations)->to_version : 0;
}

int migrate(sqlite::Connection& connection, std::span<const Migration> steps) {
  int found = 0;
  sqlite::write_transaction(connection, [&] {
    found = static_cast<int>(connection.query_integer("PRAGMA user_version"));
    for (const auto& step : steps) {
      if (step.to_version <= found) continue;
      connection.execute(step.sql);
      if (connection.query_integer("PRAGMA user_version") != step.to_version)
        throw sqlite::Error(SQLITE_INTERNAL, "a migration did not set its schema version");
    }
  });
  return found;
}

bool schema_complete(sqlite::Connection& connection, int version) {
  // Preparing a statement resolves every table, column and constraint it names, without
  // running it. Each probe names what its version added.
  struct Probe {
    int since;
    const char* sql;
  };
  static constexpr Probe kProbes[] = {
      {1, "SELECT id, canonical, fields FROM fingerprints"},
      {1,
       "SELECT id, fingerprint_id, kernel_key, kernel_hash, backend, algorithm, micro_batch, "
       "status, time_ms, min_ms, max_ms, repeats, workspace_bytes, measured_at FROM measurements"},
      {1,
       "SELECT id, fingerprint_id, subject, policy, workspace_limit, mode, configurations, "
       "created_at FROM plans"},
      {2, "SELECT valid_below FROM plans"},
      // Upserts name their conflict target: these check that the unique constraints exist.
      {1,
       "INSERT INTO fingerprints (canonical, fields) VALUES (NULL, NULL) "
       "ON CONFLICT (canonical) DO NOTHING"},
      {1,
       "INSERT INTO measurements (fingerprint_id, kernel_key, backend, algorithm) "
       "VALUES (NULL, NULL, NULL, NULL) "
       "ON CONFLICT (fingerprint_id, kernel_key, backend, algorithm) DO NOTHING"},
      {1,
       "INSERT INTO plans (fingerprint_id, subject, policy, workspace_limit, mode) "
       "VALUES (NULL, NULL, NULL, NULL, NULL) "
       "ON CONFLICT (fingerprint_id, subject, policy, workspace_limit, mode) DO NOTHING"},
  };
  try {
    for (const auto& probe : kProbes)
      if (probe.since <= version) connection.prepare(probe.sql);
    return true;
  } catch (const sqlite::Error&) {
    return false;
  }
}

bool plans_have_limit_ranges(sqlite::Connection& connection) {
  try {
    connection.prepare("SELECT valid_below FROM plans");
    return true;
  } catch (const sqlite::Error& error) {
    // "no such column"; a busy or failing file is not read as one of version 1.
    if (error.code() != SQLITE_ERROR) throw;
    return false;
  }
}

}  // namespace ucudnn::db
