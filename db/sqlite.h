#pragma once
// RAII owners of SQLite's resources: a connection, a prepared statement, one execution of a
// statement (a cursor), a transaction. Failures throw sqlite::Error; it is the db code's
// internal error type and never leaves a BenchmarkStore or a maintenance function.
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ucudnn::sqlite {

class Error : public std::runtime_error {
 public:
  Error(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const { return code_ & 0xff; }  // the primary result code
  int extended_code() const { return code_; }
  // Another connection holds the lock (after the busy timeout has run out).
  bool busy() const { return code() == SQLITE_BUSY || code() == SQLITE_LOCKED; }
  // The file is damaged or is not a database at all.
  bool damaged() const { return code() == SQLITE_CORRUPT || code() == SQLITE_NOTADB; }
  // The file was renamed or deleted while open (another process set it aside): SQLite
  // refuses to write into it, and the path must be opened again.
  bool moved() const { return extended_code() == SQLITE_READONLY_DBMOVED; }
  // A read-only connection found a hot journal it cannot roll back.
  bool needs_rollback() const {
    return extended_code() == SQLITE_READONLY_ROLLBACK ||
           extended_code() == SQLITE_READONLY_RECOVERY;
  }

 private:
  int code_;
};

// One execution of a prepared statement. Resetting the statement when the cursor goes away
// ends its implicit read transaction: a statement left mid-result would hold the shared lock
// and block every writer in other processes.
class Cursor {
 public:
  Cursor(sqlite3* db, sqlite3_stmt* statement) : db_(db), statement_(statement) {}
  ~Cursor();
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  // Parameters are 1-based, as in the SQL text (?1, ?2, ...).
  Cursor& bind(int index, std::int64_t value);
  Cursor& bind(int index, double value);
  Cursor& bind(int index, std::string_view value);
  Cursor& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Cursor& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
  Cursor& bind_null(int index);

  bool step();  // true: a row is available; false: done
  void run();   // steps to the end, ignoring rows

  // Columns are 0-based. Text of a NULL or non-text column is returned as SQLite converts it.
  int type(int column) const { return sqlite3_column_type(statement_, column); }
  bool is_integer(int column) const { return type(column) == SQLITE_INTEGER; }
  bool is_number(int column) const {
    return type(column) == SQLITE_INTEGER || type(column) == SQLITE_FLOAT;
  }
  bool is_text(int column) const { return type(column) == SQLITE_TEXT; }
  std::int64_t integer(int column) const { return sqlite3_column_int64(statement_, column); }
  double real(int column) const { return sqlite3_column_double(statement_, column); }
  std::string text(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* statement_;
};

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view sql);  // throws Error
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Only one cursor of a statement may be alive at a time.
  Cursor start() { return Cursor(db_, statement_); }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* statement_ = nullptr;
};

// How long a statement waits for another process's lock before SQLITE_BUSY, and whom to tell
// when a wait lasts: a training step must not stall for long on a cache, and a person at a
// terminal should know what the tool is waiting for.
struct LockWait {
  std::chrono::milliseconds timeout{60'000};
  std::chrono::milliseconds notice_after{1'000};
  // Called once per wait that outlasts notice_after, with a sentence naming the file.
  std::function<void(const std::string& message)> notice;
};

class Connection {
 public:
  Connection() = default;
  // sqlite3_open_v2 with `flags`; throws Error (the half-opened handle is closed). `label`
  // names the file in lock-wait notices (default: `path`).
  static Connection open(const std::string& path, int flags, const LockWait& wait = {},
                         const std::string& label = {});
  ~Connection();
  Connection(Connection&& other) noexcept : db_(other.db_), busy_(std::move(other.busy_)) {
    other.db_ = nullptr;
  }
  Connection& operator=(Connection&& other) noexcept;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  explicit operator bool() const { return db_ != nullptr; }
  sqlite3* get() const { return db_; }

  // Fixed SQL text only (schema, pragmas without values): values always go through bind().
  void execute(const char* sql);
  Statement prepare(std::string_view sql) const { return Statement(db_, sql); }
  // The first column of the first row of a fixed query, e.g. "PRAGMA user_version".
  std::int64_t query_integer(const char* sql);
  std::string query_text(const char* sql);
  int changes() const { return sqlite3_changes(db_); }
  bool read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }
  // For a read-only connection to a damaged file: its schema loads although it names pages
  // that are gone (a file cut short where an index's root was), so that the tables' whole pages
  // can still be read. Defensive mode, which also keeps this off, guards writes, and a
  // read-only connection makes none.
  void relax_schema_checks() {
    sqlite3_db_config(db_, SQLITE_DBCONFIG_DEFENSIVE, 0, nullptr);
    sqlite3_db_config(db_, SQLITE_DBCONFIG_WRITABLE_SCHEMA, 1, nullptr);
  }

  // How long a statement waits for another process's lock before it fails busy. A writer
  // that found the file locked for that long tries its later writes without waiting (their
  // rows wait in memory) and waits again once, at its flush: set_lock_timeout(0) meanwhile.
  std::chrono::milliseconds lock_timeout() const {
    return busy_ ? busy_->wait.timeout : std::chrono::milliseconds(0);
  }
  void set_lock_timeout(std::chrono::milliseconds timeout) {
    if (busy_) busy_->wait.timeout = timeout;
  }

  // The busy handler's context; its address must not move.
  struct BusyState {
    LockWait wait;
    std::string label;
    std::chrono::steady_clock::time_point started;
    bool noticed = false;
  };

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
  std::unique_ptr<BusyState> busy_;
};

// BEGIN IMMEDIATE takes the write lock up front, so that a busy database is waited for (by
// the busy timeout) before any work rather than failing midway on a lock upgrade. Rolled
// back unless committed.
class Transaction {
 public:
  explicit Transaction(Connection& connection);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Connection& connection_;
  bool open_ = true;
};

// Runs `body` inside a write transaction and commits; when the database is busy, rolls back and
// tries again, `attempts` in all, within the connection's lock timeout in all, before giving up
// (throws Error).
void write_transaction(Connection& connection, const std::function<void()>& body, int attempts = 3);

// Runs `body` inside one read transaction: every statement in it sees the same state of the
// file, even while other processes write.
void read_transaction(Connection& connection, const std::function<void()>& body);

std::int64_t unix_now();

}  // namespace ucudnn::sqlite
