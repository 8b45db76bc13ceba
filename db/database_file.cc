#include "db/database_file.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "db/schema.h"

namespace ucudnn::db {

namespace fs = std::filesystem;

const char* name_of(FileProblem problem) {
  switch (problem) {
    case FileProblem::kCannotOpen:
      return "cannot-open";
    case FileProblem::kNotDatabase:
      return "not-a-database";
    case FileProblem::kText:
      return "text";
    case FileProblem::kUsersFile:
      return "users-file";
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
  return problem == FileProblem::kNotDatabase || problem == FileProblem::kCorrupt;
}

namespace {

OpenOutcome failure(FileProblem problem, std::string message, bool busy = false) {
  return OpenOutcome{std::nullopt, OpenFailure{problem, std::move(message), busy}};
}

OpenOutcome failure_of(const sqlite::Error& error) {
  if (error.code() == SQLITE_NOTADB)
    return failure(FileProblem::kNotDatabase, "not a SQLite database");
  if (error.code() == SQLITE_CORRUPT)
    return failure(FileProblem::kCorrupt,
                   std::string("damaged or truncated (") + error.what() + ")");
  return failure(FileProblem::kCannotOpen, error.what(), error.busy());
}

// "file:" URIs take the path percent-encoded where SQLite would otherwise read it as syntax.
std::string immutable_uri(const std::string& path) {
  std::string uri = "file:";
  for (unsigned char c : fs::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c > 0x7e) {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", c);
      uri += escaped;
    } else {
      uri += static_cast<char>(c);
    }
  }
  return uri + "?immutable=1";
}

// A journal beside the file may be hot: immutable readers would not see it.
bool journal_beside(const std::string& path) {
  std::error_code error;
  const auto size = fs::file_size(path + "-journal", error);
  return !error && size > 0;
}

bool writable_in_place(const std::string& path) {
  auto folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  return ::access(path.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK | X_OK) == 0;
}

struct Header {
  std::int64_t tables = 0;
  std::int64_t application_id = 0;
  int version = 0;
  bool empty() const { return tables == 0 && application_id == 0 && version == 0; }
};

OpenOutcome inspect(const std::string& path, sqlite::Connection connection, Access access,
                    const OpenOptions& options) {
  // One read transaction: a file another process creates and migrates at this moment is
  // seen either before or after, never half (an empty schema with a version set would read
  // as another application's file).
  Header header;
  std::int64_t claimed_bytes = 0;
  sqlite::read_transaction(connection, [&] {
    header.tables = connection.query_integer("SELECT count(*) FROM sqlite_schema");
    header.application_id = connection.query_integer("PRAGMA application_id");
    header.version = static_cast<int>(connection.query_integer("PRAGMA user_version"));
    claimed_bytes = connection.query_integer("PRAGMA page_count") *
                    connection.query_integer("PRAGMA page_size");
  });
  // The cheap check that catches a truncated file at once: its header claims more pages than
  // the file holds. (Other damage shows when the pages are read.)
  std::error_code error;
  std::optional<std::string> cut_short;
  if (const auto size = fs::file_size(path, error);
      !error && static_cast<std::int64_t>(size) < claimed_bytes) {
    cut_short = "damaged or truncated (" + std::to_string(size) + " bytes, its header claims " +
                std::to_string(claimed_bytes) + ")";
    // Read past by the commands that rescue rows, on their read-only connection.
    if (!options.read_past_damage || access != Access::kReadOnly)
      return failure(FileProblem::kCorrupt, *cut_short);
  }

  if (!header.empty() && header.application_id != kApplicationId) {
    if (header.application_id == 0)
      return failure(FileProblem::kForeign, "another application's SQLite database (" +
                                                std::to_string(header.tables) +
                                                " schema objects, no ucudnn application id)");
    return failure(FileProblem::kForeign, "another application's SQLite database (application_id " +
                                              std::to_string(header.application_id) + ")");
  }
  const std::string versions = "schema version " + std::to_string(header.version) +
                               ", this ucudnn knows " + std::to_string(schema_version());
  OpenedDatabase opened{std::nullopt, sqlite::Connection(), header.version, false, cut_short};
  if (header.version > schema_version()) {
    // Migrations only ever add: a newer file's tables still hold what this build reads.
    if (access == Access::kReadWrite)
      return failure(FileProblem::kNewerSchema, "written by a newer ucudnn (" + versions + ")");
    if (!schema_complete(connection))
      return failure(
          FileProblem::kNewerSchema,
          "written by a newer ucudnn whose tables this one cannot read (" + versions + ")");
    opened.newer_schema = true;
  }
  const bool migrating = header.version < schema_version();
  if (!header.empty() && (options.check_integrity || (migrating && access == Access::kReadWrite))) {
    const auto verdict = connection.query_text("PRAGMA quick_check(1)");
    if (verdict != "ok") return failure(FileProblem::kCorrupt, "quick_check: " + verdict);
  }
  // Read-only, an older file is read as it is: migrations only add, and the readers know what
  // each version lacks. (A damaged one is rescued so: its migration is what found the damage.)
  int readable_version = schema_version();
  if (migrating && access != Access::kReadWrite) {
    if (header.empty() || header.version < 1)
      return failure(FileProblem::kOlderSchema,
                     header.empty() ? std::string("an empty database, without ucudnn's tables")
                                    : "schema version " + std::to_string(header.version) +
                                          " with ucudnn's application id, which no ucudnn writes");
    readable_version = header.version;
  } else if (migrating) {
    // Another process may have migrated it further meanwhile: migrate() reads it again.
    if (migrate(connection) > schema_version())
      return failure(FileProblem::kNewerSchema, "a newer ucudnn migrated it while it was opened");
  }
  if (!opened.newer_schema && !schema_complete(connection, readable_version))
    return failure(FileProblem::kCorrupt, "tables or columns of schema version " +
                                              std::to_string(readable_version) + " are missing");

  if (access == Access::kReadWrite && connection.query_text("PRAGMA journal_mode") == "wal") {
    // WAL's shared memory does not work on network file systems. Switching needs the file to
    // ourselves; when another process holds it, keep WAL for now rather than wait.
    try {
      connection.execute("PRAGMA journal_mode=DELETE");
    } catch (const sqlite::Error&) {
    }
  }
  connection.execute("PRAGMA foreign_keys=ON");
  opened.connection = std::move(connection);
  return OpenOutcome{std::move(opened), std::nullopt};
}

OpenOutcome open_once(const std::string& path, Access access, const OpenOptions& options) {
  int flags = SQLITE_OPEN_NOMUTEX;
  std::string name = path;
  if (access == Access::kReadWrite) {
    flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  } else if (access == Access::kShared) {
    flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
    name = immutable_uri(path);
  } else {
    flags |= SQLITE_OPEN_READONLY;
  }
  sqlite::Connection connection;
  try {
    connection = sqlite::Connection::open(name, flags, options.lock_wait, path);
  } catch (const sqlite::Error& error) {
    return failure(FileProblem::kCannotOpen, error.what());
  }
  if (options.read_past_damage && access == Access::kReadOnly) connection.relax_schema_checks();
  return inspect(path, std::move(connection), access, options);
}

// Any read through a connection that may write rolls a hot journal back.
void roll_back(const std::string& path, const OpenOptions& options) {
  auto connection = sqlite::Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                                             options.lock_wait, path);
  connection.query_integer("SELECT count(*) FROM sqlite_schema");
}

// The file and its hot journal, copied to a private folder and rolled back there. The
// folder goes at once: the connection keeps its open file, and the copy leaves nothing
// behind however the process ends.
OpenOutcome open_rolled_back_copy(const std::string& path, const OpenOptions& options) {
  std::string folder = (fs::temp_directory_path() / "ucudnn-rollback-XXXXXX").string();
  if (!::mkdtemp(folder.data()))
    return failure(FileProblem::kCannotOpen,
                   "it has a hot journal that only a writer can roll back, and no private "
                   "copy could be made: " +
                       std::string(std::strerror(errno)));
  const std::string copy = folder + "/ucudnn.db";
  std::error_code error;
  fs::copy_file(path, copy, error);
  if (!error) fs::copy_file(path + "-journal", copy + "-journal", error);
  OpenOutcome outcome = failure(FileProblem::kCannotOpen, "cannot copy it: " + error.message());
  if (!error) {
    try {
      roll_back(copy, options);
      outcome = open_once(copy, Access::kReadOnly, options);
    } catch (const sqlite::Error& failed) {
      outcome = failure_of(failed);
    }
  }
  fs::remove_all(folder, error);
  return outcome;
}

OpenOutcome open_leased(const std::string& path, Access access, const OpenOptions& options) {
  try {
    try {
      return open_once(path, access, options);
    } catch (const sqlite::Error& error) {
      if (access != Access::kReadOnly || !error.needs_rollback()) throw;
    }
    // A writer was cut off (killed, disk full) and left a hot journal. A read past damage is a
    // rescue: it leaves the file exactly as it is, and rolls back a copy.
    if (!writable_in_place(path) || options.read_past_damage)
      return open_rolled_back_copy(path, options);
    roll_back(path, options);
    return open_once(path, access, options);
  } catch (const sqlite::Error& error) {
    return failure_of(error);
  } catch (const std::exception& error) {
    return failure(FileProblem::kCannotOpen, error.what());
  }
}

}  // namespace

namespace {

constexpr char kHeader[] = "SQLite format 3";  // and its terminating zero: 16 bytes

// The bytes read of the first 16 of `path` (up to 16), and whether they are SQLite's header.
std::pair<std::streamsize, bool> header_read(const std::string& path, bool& readable) {
  std::ifstream file(path, std::ios::binary);
  readable = static_cast<bool>(file);
  if (!file) return {0, false};
  char start[sizeof kHeader] = {};
  file.read(start, sizeof start);
  const auto read = file.gcount();
  return {read, read == sizeof start && std::memcmp(start, kHeader, sizeof start) == 0};
}

}  // namespace

bool has_database_header(const std::string& path) {
  bool readable = false;
  const auto [read, header] = header_read(path, readable);
  return !readable || read == 0 || header;
}

namespace {

// Whether a file that SQLite calls no database may be the user's rather than one of ours
// damaged: it does not start with SQLite's header (a header with bad fields is ours), and its
// first bytes are not all zero (what a crash leaves).
bool may_be_users_file(const std::string& path) {
  if (has_database_header(path)) return false;
  std::ifstream file(path, std::ios::binary);
  char start[4096];
  file.read(start, sizeof start);
  const auto read = file.gcount();
  return read > 0 && std::any_of(start, start + read, [](char c) { return c != 0; });
}

// Whether `path` starts as text does, not as a damaged database: no zero byte and no control
// character but white space (a damaged file's bytes, random or zeroed, have them; UTF-8 text
// passes). False where it is empty or cannot be read.
bool looks_like_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char start[4096];
  file.read(start, sizeof start);
  const auto read = file.gcount();
  if (read <= 0) return false;
  // A database cut short within its header ("SQLite format") is damage, not the user's text.
  static constexpr std::string_view kHeader = "SQLite format 3";
  if (static_cast<std::size_t>(read) <= kHeader.size() &&
      kHeader.starts_with(std::string_view(start, static_cast<std::size_t>(read))))
    return false;
  return std::all_of(start, start + read, [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 || byte == '\n' || byte == '\r' || byte == '\t';
  });
}

}  // namespace

UsersFile users_file(const std::string& path, const std::function<bool()>& database_was_here) {
  if (has_database_header(path)) return UsersFile::kNo;
  if (looks_like_text(path)) return UsersFile::kText;
  return may_be_users_file(path) && !database_was_here() ? UsersFile::kOther : UsersFile::kNo;
}

bool is_database_file(const std::string& path) {
  bool readable = false;
  return header_read(path, readable).second;
}

std::string write_error(const std::string& path, const std::exception& error) {
  std::string message = error.what();
  const auto* sqlite_error = dynamic_cast<const sqlite::Error*>(&error);
  if (!sqlite_error || sqlite_error->code() != SQLITE_READONLY) return message;
  const std::filesystem::path file(path);
  const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
  if (::access(path.c_str(), W_OK) == 0 && ::access(folder.c_str(), W_OK | X_OK) != 0)
    message += " (the folder '" + folder.string() +
               "' cannot be written, and SQLite makes its journal beside the database)";
  return message;
}

OpenOutcome open_database(const std::string& path, Access access, const OpenOptions& options,
                          FileLease* held) {
  try {
    // A reader of a file that is not there has nothing to lease and leaves nothing behind.
    // Readers of every kind (the system database's immutable ones too) are told what the file
    // is as the user's database is, not by SQLite's error for it ("disk I/O error").
    const bool reader = access != Access::kReadWrite;
    std::error_code missing;
    if (reader && !fs::exists(path, missing))
      return failure(FileProblem::kCannotOpen, "no such file");
    if (fs::is_directory(path, missing)) return failure(FileProblem::kCannotOpen, "a directory");
    // The user's file, where no database has ever been: no lock file (none is made beside the
    // user's checkpoint). Where one is, the lease's own mark decides (FileLease).
    std::error_code no_lock;
    const UsersFile users = users_file(path, [&] { return fs::exists(path + ".lock", no_lock); });
    // Text is never leased, opened or set aside, by readers and writers alike.
    if (users == UsersFile::kText)
      return failure(FileProblem::kText, "a text file, not a SQLite database");
    // Nor does a reader of a file that is no database (a network file given by mistake): no
    // lock file beside it, and no connection without a lease (a writer may set the file aside
    // and put a fresh one in its place meanwhile). A writer leases it, to set it aside.
    if (reader && !has_database_header(path))
      return failure(FileProblem::kNotDatabase, "not a SQLite database");
    if (access == Access::kShared) {
      // Immutable readers take no locks and never look at journals: nothing to lease.
      if (!journal_beside(path)) return open_leased(path, access, options);
      access = Access::kReadOnly;
    }
    // Nor a writer of the user's other files, unless it holds the lease already (and asks).
    if (!held && users == UsersFile::kOther)
      return failure(FileProblem::kUsersFile, "not a SQLite database");
    std::optional<FileLease> lease;
    if (!held) {
      bool unavailable = false;
      const auto& wait = options.lock_wait;
      std::function<void()> waiting;
      if (wait.notice)
        waiting = [&] {
          wait.notice("waiting for " + path +
                      ": another process holds its lock file while it sets the file aside or "
                      "maintains it (waiting up to " +
                      std::to_string(wait.timeout.count() / 1000) + " s)");
        };
      lease = FileLease::acquire(path, FileLease::Mode::kShared, wait.timeout, &unavailable,
                                 waiting, wait.notice_after);
      if (!lease && !unavailable)
        return failure(FileProblem::kCannotOpen,
                       "another process is setting the file aside (its lock file is held)", true);
    }
    auto outcome = open_leased(path, access, options);
    if (outcome.database) outcome.database->lease = std::move(lease);
    return outcome;
  } catch (const std::exception& error) {
    return failure(FileProblem::kCannotOpen, error.what());
  }
}

Expected<OpenedDatabase> open_or_error(const std::string& path, Access access,
                                       const OpenOptions& options) {
  std::error_code error;
  if (access != Access::kReadWrite && !fs::exists(path, error))
    return Error{path + ": no such file"};
  if (access == Access::kReadWrite) {
    const auto folder = fs::path(path).parent_path();
    if (!folder.empty() && !fs::exists(folder, error)) {
      fs::create_directories(folder, error);
      if (error) return Error{"cannot create " + folder.string() + ": " + error.message()};
    }
  }
  // Maintenance never sets a file aside, so a writer leaves no lock file beside one it cannot
  // use either (open_database spares readers already).
  if (access == Access::kReadWrite && fs::exists(path, error) && !fs::is_directory(path, error) &&
      !has_database_header(path))
    return Error{path + (looks_like_text(path) ? ": a text file, not a SQLite database"
                                               : ": not a SQLite database")};
  auto outcome = open_database(path, access, options);
  if (!outcome.database) return Error{path + ": " + outcome.failure->message};
  // merge --into, import and vacuum write databases as the store does: the lock file says so.
  if (access == Access::kReadWrite && outcome.database->lease)
    outcome.database->lease->mark_database_held();
  return std::move(*outcome.database);
}

Expected<std::string> set_aside(const std::string& path, const std::string& tag) {
  const std::string base = path + "." + tag + "-" + std::to_string(sqlite::unix_now());
  std::string target = base;
  std::error_code ignored;
  for (int n = 2; fs::exists(target, ignored) && n < 1000; ++n)
    target = base + "-" + std::to_string(n);
  // The journal first: once the file is gone, another process may create a fresh database
  // at `path` and start a journal of its own, which must stay where it is. A journal left
  // next to the fresh file would be played back into it.
  for (const char* suffix : {"-journal", "-wal", "-shm"}) {
    const std::string companion = path + suffix;
    if (fs::exists(companion, ignored)) std::rename(companion.c_str(), (target + suffix).c_str());
  }
  if (std::rename(path.c_str(), target.c_str()) != 0)
    return Error{"cannot rename " + path + " to " + target + ": " + std::strerror(errno)};
  return target;
}

}  // namespace ucudnn::db
