#pragma once
// Opening a database file and deciding whether it can be used: SQLite's header check, the
// application id, the schema version, PRAGMA quick_check and the tables themselves. The
// store sets a bad file aside and starts afresh; the maintenance commands report it.
#include <cstdint>
#include <optional>
#include <string>

#include "core/expected.h"
#include "db/sqlite.h"

namespace ucudnn::db {

enum class Access {
  kReadOnly,   // never written, never created, never migrated
  kReadWrite,  // created when missing, migrated to this build's schema
};

enum class FileProblem {
  kCannotOpen,   // missing (read-only access), no permission, I/O error, locked too long
  kNotDatabase,  // not a SQLite file at all: a text file, random bytes
  kCorrupt,      // a damaged or truncated SQLite file
  kForeign,      // another application's SQLite database
  kNewerSchema,  // written by a newer ucudnn
  kOlderSchema,  // needs a migration, but opened read-only
};
const char* name_of(FileProblem problem);

// A problem that setting the file aside and starting afresh cures (the others are about
// access, and a new file would not fare better).
bool replaceable(FileProblem problem);

struct OpenedDatabase {
  sqlite::Connection connection;
  int schema_version = 0;  // as found on disk, before any migration
};

struct OpenFailure {
  FileProblem problem;
  std::string message;  // what is wrong, without the path
};

struct OpenOutcome {
  std::optional<OpenedDatabase> database;
  std::optional<OpenFailure> failure;  // set exactly when database is not
};

// Never throws.
OpenOutcome open_database(const std::string& path, Access access);

// For the maintenance commands: the connection, or an error naming the file and what is
// wrong with it. Read-write access creates the file and its folder when missing.
Expected<sqlite::Connection> open_or_error(const std::string& path, Access access);

// Moves `path` (and its rollback journal, if any) to "<path>.<tag>-<unix time>", with a
// counter appended when that name is taken. Returns the new name.
Expected<std::string> set_aside(const std::string& path, const std::string& tag);

}  // namespace ucudnn::db
