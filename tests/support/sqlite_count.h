#pragma once
// A number or a text a test reads from an SQLite database file, such as a count of rows.
#include <sqlite3.h>

#include <cstdlib>
#include <string>

namespace ucudnn::testing {

// The first column of the first row `sql` gives on the database at `path`, opened read-only: 0
// where that is NULL, -1 where the file cannot be opened or the query fails.
inline int sqlite_number(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int number = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK)
    sqlite3_exec(
        db, sql.c_str(),
        [](void* out, int, char** values, char**) {
          *static_cast<int*>(out) = values[0] ? std::atoi(values[0]) : 0;
          return 0;
        },
        &number, nullptr);
  sqlite3_close(db);
  return number;
}

// The first column of the first row `sql` gives, as text: empty where there is none, where it
// is NULL, or where the file cannot be opened or the query fails.
inline std::string sqlite_text(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string text;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK)
    sqlite3_exec(
        db, sql.c_str(),
        [](void* out, int, char** values, char**) {
          if (values[0]) *static_cast<std::string*>(out) = values[0];
          return 1;  // the first row only
        },
        &text, nullptr);
  sqlite3_close(db);
  return text;
}

}  // namespace ucudnn::testing
