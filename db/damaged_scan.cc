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

// Rowids tried one by one after a failure before the search widens: a damaged leaf holds a
// few hundred rows at most, and ids are mostly consecutive (a replaced row leaves a gap).
constexpr std::int64_t kRowByRow = 1 << 14;

std::int64_t plus(std::int64_t a, std::int64_t b) {
  return a > kAfterEveryRow - b ? kAfterEveryRow : a + b;
}

// Where reading can go on when a seek to `failing` fails: the smallest rowid after it from
// which the statement reads again, with the first row there. A seek from the rowid just past
// a damaged leaf's last goes down the interior page to the next leaf, so trying rowids one by
// one loses no row of a readable leaf. Past kRowByRow ids, the search gallops and then halves,
// which assumes that nothing readable lies between two failing seeks: `exact` says whether it
// had to.
struct Resumption {
  std::int64_t from = kAfterEveryRow;
  Probe found;
  bool exact = true;
};
Resumption resume_after(sqlite::Statement& statement, std::int64_t failing, int id_column) {
  // A damaged first leaf: ucudnn's ids start at 1.
  if (failing == kBeforeEveryRow) failing = 0;
  for (std::int64_t i = 1; i <= kRowByRow && failing < kAfterEveryRow; ++i) {
    const std::int64_t from = plus(failing, 1);
    if (Probe found = probe(statement, from, id_column); found.readable) return {from, found};
    failing = from;
  }
  Resumption result;
  result.exact = false;
  std::int64_t readable = failing;
  for (std::int64_t step = kRowByRow;;
       step = step > kAfterEveryRow / 2 ? kAfterEveryRow : step * 2) {
    readable = plus(failing, step);
    result.found = probe(statement, readable, id_column);
    if (result.found.readable || readable == kAfterEveryRow) break;
    failing = readable;
  }
  if (!result.found.readable) return {kAfterEveryRow, {true, std::nullopt}, true};
  while (readable - failing > 1) {
    const std::int64_t middle = failing + (readable - failing) / 2;
    if (Probe at = probe(statement, middle, id_column); at.readable) {
      readable = middle;
      result.found = at;
    } else {
      failing = middle;
    }
  }
  result.from = readable;
  return result;
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
  return where + " (" + stretch.why +
         (stretch.exact ? ")"
                        : "; their ids lie too far apart to try each, so some may be readable)");
}

std::optional<std::string> describe(const Unreadable& unreadable) {
  if (unreadable.empty()) return std::nullopt;
  std::string text;
  for (const auto& stretch : unreadable) text += (text.empty() ? "" : "; ") + describe(stretch);
  return text;
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
      // Where the seek failed: past the last row read, or where this scan began (a scan that
      // failed at its first row: so that the search always moves on).
      const std::int64_t failing = last && *last >= from ? *last + 1 : from;
      const Resumption resumption = resume_after(statement, failing, id_column);
      unreadable.push_back({table, last, resumption.found.first, error.what(), resumption.exact});
      if (!resumption.found.first) return unreadable;
      from = resumption.from;
    }
  }
}

}  // namespace ucudnn::db
