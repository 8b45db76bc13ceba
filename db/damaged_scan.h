#pragma once
// Reading a table in rowid order past damage. A damaged page stops SQLite's scan of a table
// with SQLITE_CORRUPT, and with it every row after the page, although the pages after it are
// often whole: a database set aside as damaged (sqlite_store_file.cc) would keep its readable
// rows only for a tool that reads around the page. The scan seeks past what it cannot read
// (rowid seeks go through the table's interior pages, not the damaged leaf) and says which
// stretch of rowids it could not read.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "db/sqlite.h"

namespace ucudnn::db {

// Rows of `table` with rowids after `after_id` and before `resumed_at` (to the table's end
// when nullopt) that could not be read. after_id nullopt: from the table's first row.
struct UnreadableStretch {
  std::string table;
  std::optional<std::int64_t> after_id;
  std::optional<std::int64_t> resumed_at;
  std::string why;    // SQLite's message
  bool exact = true;  // false: ids too far apart to try each; readable rows may lie within
};
using Unreadable = std::vector<UnreadableStretch>;

// "the measurements with ids 24 to 57 (database disk image is malformed)"-like.
std::string describe(const UnreadableStretch& stretch);
// One line for a command's message: nullopt when nothing was unreadable.
std::optional<std::string> describe(const Unreadable& unreadable);

// Runs `select` (a SELECT whose WHERE clause ends in "<rowid column> >= ?1 ORDER BY <rowid
// column>" with a rowid column at `id_column`) from the table's start, calling `visit` on each
// row, and skips over what a damaged file does not let it read. Other errors are thrown.
Unreadable scan_past_damage(sqlite::Connection& connection, const std::string& table,
                            const std::string& select, int id_column,
                            const std::function<void(const sqlite::Cursor& row)>& visit);

}  // namespace ucudnn::db
