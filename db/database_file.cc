#include "db/database_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "db/schema.h"

namespace ucudnn::db {

const char* name_of(FileProblem problem) {
  switch (problem) {
    case FileProblem::kCannotOpen:
      return "cannot-open";
    case FileProblem::kNotDatabase:
      return "not-a-database";
    case FileProblem::kCorrupt:
      return "corrupt";
    case FileProblem::kForeign:
      return "foreign";
    case FileProblem::kNewerSchema:
      return "newer-schema";
    case FileProblem::kOlderSchema:
      return "older-schema";
  }
  return "unknown";
}

bool replaceable(FileProblem problem) {
  return problem == FileProblem::kNotDatabase || problem == FileProblem::kCorrupt ||
         problem == FileProblem::kForeign || problem == FileProblem::kNewerSchema;
}

namespace {

OpenOutcome failure(FileProblem problem, std::string message) {
  return OpenOutcome{std::nullopt, OpenFailure{problem, std::move(message)}};
}

OpenOutcome failure_of(const sqlite::Error& error) {
  if (error.code() == SQLITE_NOTADB)
    return failure(FileProblem::kNotDatabase, "not a SQLite database");
  if (error.code() == SQLITE_CORRUPT)
    return failure(FileProblem::kCorrupt,
                   std::string("damaged or truncated (") + error.what() + ")");
  return failure(FileProblem::kCannotOpen, error.what());
}

OpenOutcome inspect(sqlite::Connection connection, Access access) {
  // The first read parses the header under a shared lock, so a file being created by
  // another process at this moment is waited for rather than misjudged.
  const auto tables = connection.query_integer("SELECT count(*) FROM sqlite_schema");
  const auto application_id = connection.query_integer("PRAGMA application_id");
  const int version = static_cast<int>(connection.query_integer("PRAGMA user_version"));
  const bool empty = application_id == 0 && version == 0 && tables == 0;

  if (!empty && application_id != kApplicationId) {
    if (application_id == 0)
      return failure(FileProblem::kForeign, "another application's SQLite database (" +
                                                std::to_string(tables) +
                                                " schema objects, no ucudnn application id)");
    return failure(FileProblem::kForeign, "another application's SQLite database (application_id " +
                                              std::to_string(application_id) + ")");
  }
  if (version > schema_version())
    return failure(FileProblem::kNewerSchema, "schema version " + std::to_string(version) +
                                                  " is newer than this ucudnn's (" +
                                                  std::to_string(schema_version()) + ")");
  if (!empty) {
    const auto verdict = connection.query_text("PRAGMA quick_check(1)");
    if (verdict != "ok") return failure(FileProblem::kCorrupt, "quick_check: " + verdict);
  }
  if (version < schema_version()) {
    if (access == Access::kReadOnly)
      return failure(FileProblem::kOlderSchema,
                     empty ? std::string("an empty database, without ucudnn's tables")
                           : "schema version " + std::to_string(version) +
                                 " needs a migration, and the file is opened read-only");
    // Another process may have migrated it further meanwhile: migrate() reads it again.
    if (migrate(connection) > schema_version())
      return failure(FileProblem::kNewerSchema, "a newer ucudnn migrated it while it was opened");
  }
  if (!schema_complete(connection))
    return failure(FileProblem::kCorrupt, "tables or columns of schema version " +
                                              std::to_string(schema_version()) + " are missing");

  if (access == Access::kReadWrite && connection.query_text("PRAGMA journal_mode") == "wal") {
    // WAL's shared memory does not work on network file systems. Switching needs the file to
    // ourselves; when another process holds it, keep WAL for now rather than wait.
    try {
      connection.execute("PRAGMA journal_mode=DELETE");
    } catch (const sqlite::Error&) {
    }
  }
  connection.execute("PRAGMA foreign_keys=ON");
  return OpenOutcome{OpenedDatabase{std::move(connection), version}, std::nullopt};
}

}  // namespace

OpenOutcome open_database(const std::string& path, Access access) {
  try {
    const int flags = (access == Access::kReadOnly ? SQLITE_OPEN_READONLY
                                                   : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
                      SQLITE_OPEN_NOMUTEX;
    sqlite::Connection connection;
    try {
      connection = sqlite::Connection::open(path, flags);
    } catch (const sqlite::Error& error) {
      return failure(FileProblem::kCannotOpen, error.what());
    }
    return inspect(std::move(connection), access);
  } catch (const sqlite::Error& error) {
    return failure_of(error);
  } catch (const std::exception& error) {
    return failure(FileProblem::kCannotOpen, error.what());
  }
}

Expected<sqlite::Connection> open_or_error(const std::string& path, Access access) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (access == Access::kReadOnly && !fs::exists(path, error))
    return Error{path + ": no such file"};
  if (access == Access::kReadWrite) {
    const auto folder = fs::path(path).parent_path();
    if (!folder.empty() && !fs::exists(folder, error)) {
      fs::create_directories(folder, error);
      if (error) return Error{"cannot create " + folder.string() + ": " + error.message()};
    }
  }
  auto outcome = open_database(path, access);
  if (!outcome.database) return Error{path + ": " + outcome.failure->message};
  return std::move(outcome.database->connection);
}

Expected<std::string> set_aside(const std::string& path, const std::string& tag) {
  namespace fs = std::filesystem;
  const std::string base = path + "." + tag + "-" + std::to_string(sqlite::unix_now());
  std::string target = base;
  std::error_code ignored;
  for (int n = 2; fs::exists(target, ignored) && n < 1000; ++n)
    target = base + "-" + std::to_string(n);
  if (std::rename(path.c_str(), target.c_str()) != 0)
    return Error{"cannot rename " + path + " to " + target + ": " + std::strerror(errno)};
  // A hot journal left next to a new file would be played back into it.
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const std::string companion = path + suffix;
    if (fs::exists(companion, ignored)) std::rename(companion.c_str(), (target + suffix).c_str());
  }
  return target;
}

}  // namespace ucudnn::db
