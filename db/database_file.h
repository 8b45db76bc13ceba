#pragma once
// Opening a database file and deciding whether it can be used: SQLite's header check, the
// application id, the schema version and the tables, read in one read transaction so that
// a file another process is creating at that moment is never misjudged. PRAGMA quick_check
// runs only when the file gives a reason (a migration, damage seen before); `ucudnn db
// check` runs the full integrity check. The store sets a damaged file aside and starts afresh
// (never a text file: that is the user's); the maintenance commands report it.
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>

#include "core/expected.h"
#include "db/file_lease.h"
#include "db/sqlite.h"

namespace ucudnn::db {

enum class Access {
  kReadOnly,   // never written, created or migrated (a hot journal is rolled back, see below)
  kReadWrite,  // created when missing, migrated to this build's schema
  kShared,     // read-only without locks (SQLite's immutable): a system database on a shared,
               // possibly read-only file system that nobody writes while jobs read it
};

enum class FileProblem {
  kCannotOpen,   // missing (read-only access), no permission, I/O error, locked too long
  kNotDatabase,  // not a SQLite file at all: random bytes, zeros (damage)
  kUsersFile,    // no SQLite file, where no ucudnn database has been: a checkpoint, a dump
  kText,         // a text file: the user's (a script, a network file named by a slip)
  kCorrupt,      // one of ours, damaged or truncated
  kForeign,      // another application's SQLite database
  kNewerSchema,  // written by a newer ucudnn, and its tables are not ours to read
  kOlderSchema,  // an empty file (no schema yet), opened read-only
};
const char* name_of(FileProblem problem);

// The problems that setting the file aside and starting afresh cures. Another
// application's file or a newer ucudnn's is never touched; the others are about access,
// and a new file would not fare better.
bool replaceable(FileProblem problem);

struct OpenOptions {
  sqlite::LockWait lock_wait;
  // Run PRAGMA quick_check even without a reason in the file itself (damage was seen).
  bool check_integrity = false;
  // Read-only access for `db check`, `export` and `merge`, which read every row they can: a
  // file cut short (its header claims more pages than it holds), or one whose schema names a
  // page that is gone (an index's root among the lost pages), is opened anyway, with SQLite's
  // schema checks relaxed (SQLITE_DBCONFIG_WRITABLE_SCHEMA, no writes made), and its tables
  // are read past the missing pages as past damaged ones.
  bool read_past_damage = false;
};
inline OpenOptions reading_past_damage(const sqlite::LockWait& wait) {
  OpenOptions options{wait};
  options.read_past_damage = true;
  return options;
}

struct OpenedDatabase {
  // Held while the connection lives (declared first: it goes last), so that no other process
  // sets the file aside under it. Empty for shared access and where no lock file can exist.
  std::optional<FileLease> lease;
  sqlite::Connection connection;
  int schema_version = 0;  // as found on disk, before any migration
  // A newer ucudnn's file whose tables this build can read (read-only access only).
  bool newer_schema = false;
  // Opened reading past damage: the file is shorter than its header says ("damaged or
  // truncated (3000 bytes, its header claims 4096)", as an open that refuses it says), which a
  // scan may not notice where the lost bytes were unused.
  std::optional<std::string> cut_short;
};

struct OpenFailure {
  FileProblem problem;
  std::string message;  // what is wrong, without the path
  bool busy = false;    // another process held a lock past the wait: try again later
};

struct OpenOutcome {
  std::optional<OpenedDatabase> database;
  std::optional<OpenFailure> failure;  // set exactly when database is not
};

// Never throws. Takes a shared lease on the file first (waiting up to the lock wait; busy
// when it is not granted), unless the caller holds one already (`held`, e.g. the exclusive
// lease under which it sets a bad file aside; it stays the caller's). Read-only access after
// a crash: a hot journal that the reader cannot roll back itself is rolled back through a
// read-write connection when the file is writable, else in a private copy, so that every
// reader works right after a writer was killed.
OpenOutcome open_database(const std::string& path, Access access, const OpenOptions& options = {},
                          FileLease* held = nullptr);

// For the maintenance commands: the database, or an error naming the file and what is
// wrong with it. Read-write access creates the file and its folder when missing.
Expected<OpenedDatabase> open_or_error(const std::string& path, Access access,
                                       const OpenOptions& options = {});

// Moves `path` (and its rollback journal, if any) to "<path>.<tag>-<unix time>", with a
// counter appended when that name is taken. Returns the new name.
Expected<std::string> set_aside(const std::string& path, const std::string& tag);

// Whether `path` starts as every SQLite database does, or is empty (SQLite's empty database);
// true where it cannot be read (opening it then says why).
bool has_database_header(const std::string& path);

// Whether `path` can be read and starts with SQLite's header: a database with something in it
// (not an empty file, not an unreadable one), which the tool's outputs never write over.
bool is_database_file(const std::string& path);

// What an error writing the database at `path` says, and where the folder cannot be written
// while the file can, that this is why (SQLite makes its journal beside the database, and its
// own message blames the database: "attempt to write a readonly database").
std::string write_error(const std::string& path, const std::exception& error);

// Whether a file that is no SQLite database is the user's, left as it is whoever finds it: text
// (a script, a network file named by a slip), or bytes that are no damaged database's
// (not SQLite's header, where a header with bad fields is ours, nor all zeros, what a crash
// leaves) where no ucudnn database has been. Where one has, they are its damage.
// What says one has depends on the lease the caller holds (the lock file's being there, its
// mark read through the lease, or read without one: FileLease), so the caller answers
// `database_was_here`, asked only where it decides. kNo too where the file is empty, missing or
// cannot be read (opening it says why).
enum class UsersFile { kNo, kText, kOther };
UsersFile users_file(const std::string& path, const std::function<bool()>& database_was_here);

}  // namespace ucudnn::db
