// A damaged database keeps most of its rows: damage is mostly a page or two (a disk fault, a
// crash without the journal), and the store sets such a file aside rather than repair it
// (damaged_file_test.cc). `db check`, `db export` and `db merge` read every row that lies
// outside the damaged pages and say which rows they could not read, so that a user can copy
// what is left into a working database; they used to stop at the first damaged page, and
// refused a file cut short outright.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "db/maintenance/commands.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"
#include "support/random_seed.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

constexpr std::int64_t kRows = 400;

MeasurementRecord row(std::int64_t b) {
  return supported(gpu_fingerprint(), kernel(b, static_cast<int>(b % 7)), "FFT", b * 0.1, b);
}

// kRows measurements (ids 1 to kRows, a few hundred pages) and a plan.
void fill_rows(const std::string& path) {
  SqliteStore store(path);
  std::vector<MeasurementRecord> records;
  for (std::int64_t b = 1; b <= kRows; ++b) records.push_back(row(b));
  store.put_measurements(records);
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
}

// fill_rows, as schema version 1 wrote them (no valid_below: its plans answer their exact limit).
void fill_version_one_rows(const std::string& path) {
  fill_rows(path);
  raw_connection(path).execute(
      "ALTER TABLE plans DROP COLUMN valid_below; PRAGMA user_version = 1; VACUUM");
}

// fill_rows (or `fill`); then one to three leaves of the measurements, drawn at random (the
// first and last among them), overwritten with random bytes. Returns the rows they held.
std::int64_t damage_leaves(const std::string& path, SeededRandom& random,
                           void (*fill)(const std::string&) = fill_rows) {
  fill(path);
  auto pages = pages_of(path, "measurements");
  std::erase_if(pages, [](const TablePage& page) { return page.type != "leaf"; });
  EXPECT_GT(pages.size(), 3u);
  std::shuffle(pages.begin(), pages.end(), random.engine());
  const auto count = static_cast<std::size_t>(random.uniform(1, 3));
  std::int64_t lost = 0;
  for (std::size_t i = 0; i < count; ++i) {
    scramble_page(path, pages[i].number, random);
    // Page type 0 is none of SQLite's: the page is certainly damaged, never a leaf by chance.
    auto bytes = read_file(path);
    bytes[static_cast<std::size_t>(pages[i].number - 1) * 4096] = 0;
    write_file(path, bytes);
    lost += pages[i].cells;
  }
  std::cout << "damaged " << count << " of " << pages.size() << " leaves, " << lost << " rows\n";
  return lost;
}

// The measurements of `path` that are rows of damage_leaves' database, each checked intact.
std::size_t rows_found_intact(const std::string& path) {
  SqliteStore store(path);
  std::size_t found = 0;
  for (std::int64_t b = 1; b <= kRows; ++b) {
    const auto record = row(b);
    if (const auto back =
            store.find_measurement(record.fingerprint, record.kernel, "cudnn", "FFT")) {
      ++found;
      expect_same(back->measurement, record.measurement);
    }
  }
  return found;
}

// Opens the damaged file at `path` as a job's store does: the first lookup reads the device's
// rows, finds the damage, and sets the file aside, copying into the fresh one the `left`
// measurements and the plan it still holds. Returns the warning that says so.
std::string expect_set_aside_with_rows_kept(const std::string& path, std::size_t left) {
  Warnings warnings;
  {
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(kRows + 1), "cudnn", "FFT"));
    EXPECT_EQ(store.state(), StoreState::kReadWrite);
  }
  EXPECT_EQ(warnings.count(), 1u) << warnings.all();
  const std::string warning = warnings.messages.empty() ? "" : warnings.messages[0];
  EXPECT_NE(warning.find("; the " + std::to_string(left) +
                         " measurements and 1 plan it still held were copied into it"),
            std::string::npos)
      << warning;
  EXPECT_EQ(rows_found_intact(path), left);
  EXPECT_EQ(SqliteStore(path).find_plan(plan_key(gpu_fingerprint())), sample_plan());
  return warning;
}

// Exactly the ids the damaged leaves held, each stretch searched row by row.
void expect_lost(const db::Unreadable& unreadable, std::int64_t cells) {
  ASSERT_FALSE(unreadable.empty());
  ASSERT_LE(unreadable.size(), 3u);
  std::int64_t ids = 0;
  for (const auto& stretch : unreadable) {
    EXPECT_EQ(stretch.table, "measurements");
    EXPECT_TRUE(stretch.exact) << db::describe(stretch);
    ids += stretch.resumed_at.value_or(kRows + 1) - stretch.after_id.value_or(0) - 1;
  }
  EXPECT_EQ(ids, cells) << *db::describe(unreadable);
}

TEST(DamagedRescue, EveryRowOutsideDamagedPagesIsCheckedExportedAndMerged) {
  SeededRandom random;
  TempFolder folder;
  const auto damaged = folder.file("damaged.db"), rescued = folder.file("rescued.db");
  const std::int64_t lost = damage_leaves(damaged, random);
  ASSERT_GT(lost, 0);
  const auto left = static_cast<std::size_t>(kRows - lost);

  auto report = db::check_database(damaged);
  ASSERT_TRUE(report) << report.error();
  EXPECT_FALSE(report->ok());
  EXPECT_EQ(report->measurements_checked, left);
  EXPECT_EQ(report->plans_checked, 1u);
  expect_lost(report->unreadable, lost);
  for (const auto& problem : report->problems)  // each printed as one "problem:" line
    EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;

  std::ostringstream out;
  auto exported = db::export_database(damaged, out, db::ExportLayout::kLines);
  ASSERT_TRUE(exported) << exported.error();
  EXPECT_EQ(exported->measurements, left);
  EXPECT_EQ(exported->plans, 1u);
  EXPECT_EQ(exported->fingerprints, 1u);
  expect_lost(exported->unreadable, lost);

  auto merged = db::merge_database(damaged, rescued);
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->measurements_written, left);
  EXPECT_EQ(merged->plans_written, 1u);
  expect_lost(merged->unreadable, lost);
  EXPECT_EQ(rows_found_intact(rescued), left);
  SqliteStore store(rescued);
  EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan());
}

// A store that finds its file damaged sets it aside and copies what it still holds into the
// fresh file, before anyone else looks there: a bench then measures only what the damage took.
// It used to start empty, naming the merge that would copy the rows back, which a bench never
// waited for (every measurement was taken again).
TEST(DamagedRescue, AStoreThatSetsADamagedFileAsideKeepsWhatItStillHolds) {
  SeededRandom random;
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  const std::int64_t lost = damage_leaves(path, random);
  ASSERT_GT(lost, 0);
  const auto left = static_cast<std::size_t>(kRows - lost);
  const std::string warning = expect_set_aside_with_rows_kept(path, left);
  EXPECT_NE(warning.find("copied into it (`ucudnn db check --database "), std::string::npos)
      << warning;
  const auto aside = folder.names_starting_with("ucudnn.db.corrupt-");
  ASSERT_EQ(aside.size(), 1u) << "the damaged file is kept as it was, and nothing beside it";
  const auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  EXPECT_TRUE(report->ok()) << "the fresh file is whole";
}

// A file of schema version 1 found damaged when it is opened to be migrated: its rows are
// rescued as a current file's are, by the store that sets it aside and by check, export and
// merge. They read it with the columns of the current schema, which version 1 lacks, so none
// was copied, and the commands refused it as a file that needs a migration.
TEST(DamagedRescue, AVersionOneFileDamagedAtItsMigrationKeepsWhatItStillHolds) {
  SeededRandom random;
  TempFolder folder;
  const auto path = folder.file("ucudnn.db"), copy = folder.file("copy.db");
  const auto rescued = folder.file("rescued.db");
  const std::int64_t lost = damage_leaves(path, random, fill_version_one_rows);
  ASSERT_GT(lost, 0);
  const auto left = static_cast<std::size_t>(kRows - lost);
  write_file(copy, read_file(path));

  const auto report = db::check_database(copy);
  ASSERT_TRUE(report) << report.error();
  EXPECT_EQ(report->measurements_checked, left);
  EXPECT_EQ(report->plans_checked, 1u);
  expect_lost(report->unreadable, lost);
  std::ostringstream out;
  const auto exported = db::export_database(copy, out, db::ExportLayout::kLines);
  ASSERT_TRUE(exported) << exported.error();
  EXPECT_EQ(exported->measurements, left);
  EXPECT_EQ(exported->plans, 1u);
  const auto merged = db::merge_database(copy, rescued);
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(merged->measurements_written, left);
  EXPECT_EQ(merged->plans_written, 1u);
  EXPECT_EQ(rows_found_intact(rescued), left);
  EXPECT_EQ(raw_connection(copy).query_integer("PRAGMA user_version"), 1) << "read, not migrated";

  expect_set_aside_with_rows_kept(path, left);
  SqliteStore store(path);
  PlanKey above = plan_key(gpu_fingerprint());
  ++above.workspace_limit;
  EXPECT_FALSE(store.find_plan(above)) << "a plan of version 1 answers its exact limit only";
}

// A file cut short (a copy stopped, a disk full while it grew) loses its last pages, and with
// them, often, an index's root page: SQLite then refuses even to read the schema, and check,
// export and merge refused the whole file although its tables' pages were whole. They read it
// as its pages allow now.
TEST(DamagedRescue, AFileCutShortKeepsTheRowsOfItsRemainingPages) {
  SeededRandom random;
  TempFolder folder;
  const auto cut = folder.file("cut.db"), rescued = folder.file("rescued.db");
  fill_rows(cut);
  auto bytes = read_file(cut);
  const auto pages = static_cast<std::int64_t>(bytes.size() / 4096);
  const std::int64_t kept = pages - random.uniform(1, 3);
  // Sometimes within a page as well: half of the last page kept is lost too, which only the
  // file's size against its header shows where that page held no row.
  const bool mid_page = random.uniform(0, 1) == 1;
  // The measurements on the pages cut off; an interior page among them hides more, and a page
  // cut in half may keep some of its rows.
  std::int64_t lost = 0;
  bool inexact = false;
  for (const auto& page : pages_of(cut, "measurements")) {
    if (page.number < kept || (page.number == kept && !mid_page)) continue;
    if (page.type == "leaf" && page.number > kept)
      lost += page.cells;
    else
      inexact = true;
  }
  bytes.resize(static_cast<std::size_t>(kept) * 4096 - (mid_page ? 2048 : 0));
  write_file(cut, bytes);
  std::cout << "cut " << pages - kept << " of " << pages << " pages"
            << (mid_page ? " and a half" : "") << ": " << lost << " measurements on them"
            << (inexact ? ", and a page that hides more or fewer" : "") << "\n";

  const auto report = db::check_database(cut);
  ASSERT_TRUE(report) << report.error();
  EXPECT_FALSE(report->ok());
  EXPECT_TRUE(report->damaged);
  if (mid_page) {
    std::string all;
    for (const auto& problem : report->problems) all += problem + "\n";
    EXPECT_NE(all.find("damaged or truncated (" + std::to_string(bytes.size()) +
                       " bytes, its header claims"),
              std::string::npos)
        << all;
  }
  std::ostringstream out;
  const auto exported = db::export_database(cut, out, db::ExportLayout::kLines);
  ASSERT_TRUE(exported) << exported.error();
  const auto merged = db::merge_database(cut, rescued);
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(exported->measurements, merged->measurements_written);
  if (inexact) {
    // Check counts the rows of a half-kept page it reads as garbage (each a problem of its own).
    EXPECT_GE(report->measurements_checked, merged->measurements_written);
    EXPECT_GT(merged->measurements_written, 0u);
    EXPECT_LE(merged->measurements_written, static_cast<std::size_t>(kRows - lost));
  } else {
    EXPECT_EQ(report->measurements_checked, merged->measurements_written);
    EXPECT_EQ(merged->measurements_written, static_cast<std::size_t>(kRows - lost));
  }
  EXPECT_EQ(rows_found_intact(rescued), merged->measurements_written);
}

// Damage in an index, not in the rows: every row reads (by rowid), but SQLite's integrity check
// fails, and so do the commands that go through the index (`db vacuum`, `db info`). The report
// says the file is damaged, so that `db check` names the merge that copies the rows into a
// whole file (it named it only where rows were unreadable).
TEST(DamagedRescue, ADamagedIndexIsDamageThoughEveryRowReads) {
  SeededRandom random;
  TempFolder folder;
  const auto damaged = folder.file("damaged.db"), rescued = folder.file("rescued.db");
  fill_rows(damaged);
  const auto pages = pages_of(damaged, "measurements_by_hash");
  ASSERT_FALSE(pages.empty());
  const auto page = pages[static_cast<std::size_t>(
      random.uniform(0, static_cast<std::int64_t>(pages.size()) - 1))];
  scramble_page(damaged, page.number, random);
  auto bytes = read_file(damaged);
  bytes[static_cast<std::size_t>(page.number - 1) * 4096] = 0;  // certainly no b-tree page
  write_file(damaged, bytes);

  const auto report = db::check_database(damaged);
  ASSERT_TRUE(report) << report.error();
  EXPECT_TRUE(report->damaged);
  EXPECT_TRUE(report->unreadable.empty());
  EXPECT_EQ(report->measurements_checked, static_cast<std::size_t>(kRows));
  const auto merged = db::merge_database(damaged, rescued);
  ASSERT_TRUE(merged) << merged.error();
  EXPECT_EQ(rows_found_intact(rescued), static_cast<std::size_t>(kRows));
  const auto again = db::check_database(rescued);
  ASSERT_TRUE(again) << again.error();
  EXPECT_TRUE(again->ok()) << again->problems.front();
  EXPECT_FALSE(again->damaged);
}

}  // namespace
}  // namespace ucudnn
