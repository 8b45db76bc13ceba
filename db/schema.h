#pragma once
// The database schema and its migrations. A database carries ucudnn's application id
// (PRAGMA application_id, so that `file` and ucudnn itself recognize it) and its schema
// version (PRAGMA user_version). Version N+1 is reached from N by migration N; version 0 is
// an empty file. Migrations only ever add: a database is never migrated downwards (a newer
// schema than this build knows is set aside by the opener).
#include <cstdint>
#include <span>

#include "db/sqlite.h"

namespace ucudnn::db {

// "ucdn" in ASCII.
inline constexpr std::int32_t kApplicationId = 0x7563646E;

struct Migration {
  int to_version;   // the version the database has after this step
  const char* sql;  // fixed SQL; it sets user_version to to_version itself
};

// The migrations of this build, in order; the schema version is the last one's to_version.
std::span<const Migration> migrations();
int schema_version();

// Brings the database to the last version of `steps` (default: this build's migrations) in
// one write transaction, re-reading the version inside it so that several processes opening
// a new file at once migrate it exactly once. Returns the version found before migrating; a
// version above the newest step is left untouched (the caller decides). Throws sqlite::Error.
int migrate(sqlite::Connection& connection, std::span<const Migration> steps = migrations());

// Whether every table and column of schema `version` (default: this build's, which it reads
// and writes) exists, whatever user_version claims (a file can have the right id and version
// but damaged or dropped tables).
bool schema_complete(sqlite::Connection& connection, int version = schema_version());

// Whether the plans table has version 2's valid_below: a file of version 1 opened read-only
// (not migrated) lacks it, and its plans answer their exact limit.
bool plans_have_limit_ranges(sqlite::Connection& connection);

}  // namespace ucudnn::db
