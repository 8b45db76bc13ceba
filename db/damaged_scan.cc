#include "db/damaged_scan.h"

#include <limits>

namespace ucudnn::db {

namespace {

constexpr std::int64_t kBeforeEveryRow = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kAfterEveryRow = std::numeric_limits<std::int64_t>::max();

// What the statement finds from a rowid on: whether it could read there, and its first row.
struct Probe {
  bool readable = false;
  std::optional<std::int64_t> first;
};

Probe probe(sqlite::Statement& statement, std::int64_t from, int id_column) {
  try {
    auto cursor = statement.start();
    cursor.bind(1, from);
    if (!cursor.step()) return {true, std::nullopt};
    return {true, cursor.integer(id_column)};
  } catch (const sqlite::Error& error) {
    if (!error.damaged()) throw;
    return {false, std::nullopt};
  }
}

// Where reading can go on when reading from `failing` on fails: the smallest rowid after it
// from which the statement reads again (galloping, then halving), with the first row there.
// A seek from the rowid just past a damaged leaf's last goes down the interior page to the
// next leaf, so that no whole leaf's row is lost.
struct Resumption {
  std::int64_t from;
  Probe found;
};
Resumption resume_after(sqlite::Statement& statement, std::int64_t failing, int id_column) {
  std::int64_t readable = failing;
  Probe found;
  for (std::int64_t step = 1;; step = step > kAfterEveryRow / 2 ? kAfterEveryRow : step * 2) {
    readable = failing > kAfterEveryRow - step ? kAfterEveryRow : failing + step;
    found = probe(statement, readable, id_column);
    if (found.readable || readable == kAfterEveryRow) break;
    failing = readable;
  }
  if (!found.readable) return {kAfterEveryRow, {true, std::nullopt}};
  while (readable - failing > 1) {
    const std::int64_t middle = failing + (readable - failing) / 2;
    if (Probe at = probe(statement, middle, id_column); at.readable) {
      readable = middle;
      found = at;
    } else {
      failing = middle;
    }
  }
  return {readable, found};
}

}  // namespace

std::string describe(const UnreadableStretch& stretch) {
  // Rowids are the stored rows' ids (what `db check` names them by): the lost ones lie between.
  std::string where = "the " + stretch.table;
  if (stretch.after_id && stretch.resumed_at) {
    const std::int64_t first = *stretch.after_id + 1, last = *stretch.resumed_at - 1;
    where += first == last ? " with id " + std::to_string(first)
                           : " with ids " + std::to_string(first) + " to " + std::to_string(last);
  } else if (stretch.after_id) {
    where += " after id " + std::to_string(*stretch.after_id);
  } else if (stretch.resumed_at) {
    where += " before id " + std::to_string(*stretch.resumed_at);
  } else {
    where = "every row of the " + stretch.table;
  }
  return where + " (" + stretch.why + ")";
}

std::optional<std::string> describe(const Unreadable& unreadable) {
  if (unreadable.empty()) return std::nullopt;
  std::string text;
  for (const auto& stretch : unreadable) text += (text.empty() ? "" : "; ") + describe(stretch);
  return text;
}

bool rows_may_be_read(const std::string& path) {
  try {
    auto connection = sqlite::Connection::open(path, SQLITE_OPEN_READONLY);
    connection.prepare("SELECT id FROM measurements WHERE id >= ?1 ORDER BY id");
    connection.prepare("SELECT id FROM plans WHERE id >= ?1 ORDER BY id");
    return true;
  } catch (const sqlite::Error&) {
    return false;
  }
}

Unreadable scan_past_damage(sqlite::Connection& connection, const std::string& table,
                            const std::string& select, int id_column,
                            const std::function<void(const sqlite::Cursor& row)>& visit) {
  Unreadable unreadable;
  auto statement = connection.prepare(select);
  std::int64_t from = kBeforeEveryRow;
  std::optional<std::int64_t> last;  // the last row read
  for (;;) {
    try {
      auto cursor = statement.start();
      cursor.bind(1, from);
      while (cursor.step()) {
        last = cursor.integer(id_column);
        visit(cursor);
      }
      return unreadable;
    } catch (const sqlite::Error& error) {
      if (!error.damaged()) throw;
      if (last && *last == kAfterEveryRow) return unreadable;
      const Resumption resumption =
          resume_after(statement, last ? *last + 1 : kBeforeEveryRow, id_column);
      unreadable.push_back({table, last, resumption.found.first, error.what()});
      if (!resumption.found.first) return unreadable;
      from = resumption.from;
    }
  }
}

}  // namespace ucudnn::db
