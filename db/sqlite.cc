#include "db/sqlite.h"

#include <chrono>
#include <cstdio>
#include <thread>

namespace ucudnn::sqlite {

namespace {

// SQLite's own message: the caller names the file and what it was doing.
[[noreturn]] void fail(sqlite3* db, int code) {
  throw Error(db ? sqlite3_extended_errcode(db) : code,
              db ? sqlite3_errmsg(db) : sqlite3_errstr(code));
}

}  // namespace

Cursor::~Cursor() {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

Cursor& Cursor::bind(int index, std::int64_t value) {
  if (int rc = sqlite3_bind_int64(statement_, index, value); rc != SQLITE_OK) fail(db_, rc);
  return *this;
}

Cursor& Cursor::bind(int index, double value) {
  if (int rc = sqlite3_bind_double(statement_, index, value); rc != SQLITE_OK) fail(db_, rc);
  return *this;
}

Cursor& Cursor::bind(int index, std::string_view value) {
  // SQLITE_TRANSIENT: SQLite copies the text, so the caller's string may go away.
  if (int rc = sqlite3_bind_text64(statement_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                   SQLITE_UTF8);
      rc != SQLITE_OK)
    fail(db_, rc);
  return *this;
}

Cursor& Cursor::bind_null(int index) {
  if (int rc = sqlite3_bind_null(statement_, index); rc != SQLITE_OK) fail(db_, rc);
  return *this;
}

bool Cursor::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, rc);
}

void Cursor::run() {
  while (step()) {
  }
}

std::string Cursor::text(int column) const {
  const auto* bytes = sqlite3_column_text(statement_, column);
  if (!bytes) return {};
  return std::string(reinterpret_cast<const char*>(bytes),
                     static_cast<std::size_t>(sqlite3_column_bytes(statement_, column)));
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  if (int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                  SQLITE_PREPARE_PERSISTENT, &statement_, nullptr);
      rc != SQLITE_OK) {
    sqlite3_finalize(statement_);
    statement_ = nullptr;
    fail(db, rc);
  }
}

Statement::Statement(Statement&& other) noexcept : db_(other.db_), statement_(other.statement_) {
  other.statement_ = nullptr;
}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(statement_);
    db_ = other.db_;
    statement_ = other.statement_;
    other.statement_ = nullptr;
  }
  return *this;
}

namespace {

// SQLite's own busy-timeout schedule, with a deadline of our choosing and a notice.
int on_busy(void* context, int count) {
  using namespace std::chrono;
  auto& state = *static_cast<Connection::BusyState*>(context);
  const auto now = steady_clock::now();
  if (count == 0) {
    state.started = now;
    state.noticed = false;
  }
  const auto waited = duration_cast<milliseconds>(now - state.started);
  if (waited >= state.wait.timeout) return 0;
  if (!state.noticed && state.wait.notice && waited >= state.wait.notice_after) {
    state.noticed = true;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%.3g s", state.wait.timeout.count() / 1000.0);
    state.wait.notice("waiting for " + state.label +
                      ": another process holds its lock (waiting up to " + limit + ")");
  }
  static constexpr int kDelaysMs[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
  constexpr int kSteps = sizeof kDelaysMs / sizeof kDelaysMs[0];
  const milliseconds delay(kDelaysMs[count < kSteps ? count : kSteps - 1]);
  std::this_thread::sleep_for(std::min(delay, state.wait.timeout - waited));
  return 1;
}

}  // namespace

Connection Connection::open(const std::string& path, int flags, const LockWait& wait,
                            const std::string& label) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  Connection connection(db);  // owns the handle even when the open failed
  if (rc != SQLITE_OK) fail(db, rc);
  sqlite3_extended_result_codes(db, 1);
  connection.busy_ =
      std::make_unique<BusyState>(BusyState{wait, label.empty() ? path : label, {}, false});
  sqlite3_busy_handler(db, on_busy, connection.busy_.get());
  // A shared database may have been written by anyone: its schema must not be able to run
  // functions with side effects or let SQL corrupt the file on purpose.
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  return connection;
}

Connection::~Connection() {
  // close_v2: statements still alive (none, by member order) would not keep it from closing.
  sqlite3_close_v2(db_);
}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = other.db_;
    busy_ = std::move(other.busy_);
    other.db_ = nullptr;
  }
  return *this;
}

void Connection::execute(const char* sql) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw Error(sqlite3_extended_errcode(db_), text);
  }
}

std::int64_t Connection::query_integer(const char* sql) {
  Statement statement = prepare(sql);
  auto cursor = statement.start();
  return cursor.step() ? cursor.integer(0) : 0;
}

std::string Connection::query_text(const char* sql) {
  Statement statement = prepare(sql);
  auto cursor = statement.start();
  return cursor.step() ? cursor.text(0) : std::string();
}

Transaction::Transaction(Connection& connection) : connection_(connection) {
  connection_.execute("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  // After a failed COMMIT or an error that already ended the transaction, ROLLBACK fails
  // harmlessly; there is nothing else to do in a destructor.
  if (open_) sqlite3_exec(connection_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  connection_.execute("COMMIT");
  open_ = false;
}

void write_transaction(Connection& connection, const std::function<void()>& body, int attempts) {
  // Attempts share the lock timeout: a lock held through one attempt's whole wait is not waited
  // for again (the wait the notice announced is the most there is). A busy answer that came
  // sooner (SQLite's deadlock avoidance) is worth another attempt.
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    try {
      Transaction transaction(connection);
      body();
      transaction.commit();
      return;
    } catch (const Error& error) {
      if (!error.busy() || attempt >= attempts ||
          std::chrono::steady_clock::now() - start >= connection.lock_timeout())
        throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100 * attempt));
  }
}

void read_transaction(Connection& connection, const std::function<void()>& body) {
  connection.execute("BEGIN DEFERRED");
  try {
    body();
  } catch (...) {
    sqlite3_exec(connection.get(), "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  connection.execute("COMMIT");
}

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ucudnn::sqlite
