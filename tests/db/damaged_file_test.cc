// A bad database file never stops the application. A file that is not a database, or one of
// ours that is damaged, is set aside, with one warning, and a fresh database takes its
// place; another application's file or a newer ucudnn's is never changed.
#include <gtest/gtest.h>

#include <filesystem>

#include "db/file_lease.h"
#include "db/schema.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"
#include "support/random_seed.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

// A database of a few hundred pages.
void fill(const std::string& path) {
  SqliteStore store(path);
  std::vector<MeasurementRecord> records;
  for (int b = 1; b <= 400; ++b)
    records.push_back(supported(gpu_fingerprint(), kernel(b, b % 7), "FFT", b * 0.1, b));
  store.put_measurements(records);
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
}

// Opens the file, and expects: one warning naming the file and `problem`, the file moved to
// "<name>.<tag>-<time>", and a working store in its place, holding what the damaged file still
// could give (DamagedRescue).
void expect_replaced(TempFolder& folder, const std::string& path, const std::string& tag,
                     const std::string& problem) {
  Warnings warnings;
  {
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    // Damage inside the rows shows at the first lookup, which reads the device's rows.
    EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(1000, 0), "cudnn", "FFT"));
    ASSERT_EQ(store.state(), StoreState::kReadWrite) << warnings.all();
    ASSERT_EQ(warnings.count(), 1u) << warnings.all();
    EXPECT_NE(warnings.messages[0].find(path), std::string::npos) << warnings.messages[0];
    EXPECT_NE(warnings.messages[0].find(problem), std::string::npos) << warnings.messages[0];
    auto aside = folder.names_starting_with(std::filesystem::path(path).filename().string() + "." +
                                            tag + "-");
    std::erase_if(aside, [](const std::string& name) { return name.ends_with("-journal"); });
    EXPECT_EQ(aside.size(), 1u) << warnings.all();
    // Damage is mostly a page or two: the rest is copied into the fresh file, where it can be
    // read (from damaged pages and from a file cut in half; not from one cut within its header,
    // nor, yet, from one whose table is missing).
    const bool readable = tag == "corrupt" && aside.size() == 1 &&
                          (problem == "quick_check" || problem == "damaged or truncated");
    EXPECT_EQ(warnings.messages[0].find("it still held were copied into it") != std::string::npos,
              readable)
        << warnings.messages[0];
    EXPECT_EQ(warnings.messages[0].find("ucudnn db merge"), std::string::npos)
        << warnings.messages[0];

    store.put_measurements({supported(gpu_fingerprint(), kernel(3), "FFT", 1.0, 10)});
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
    EXPECT_EQ(store.failed_writes(), 0u);
  }
  SqliteStore again(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
  EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(3), "cudnn", "FFT"));
  EXPECT_EQ(again.find_plan(plan_key(gpu_fingerprint())), sample_plan());
  EXPECT_EQ(warnings.count(), 1u) << "the fresh file is fine: " << warnings.all();
}

// Damage is found when the store reads what it needs (the device's rows, at the first
// lookup), not by a scan of the whole file at every open: then quick_check decides, and the
// file goes aside.
TEST(DamagedFile, RandomBytesInTheRowsOfTheDevice) {
  SeededRandom random;
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  const auto pages = pages_of(path, "measurements");
  ASSERT_GT(pages.size(), 3u);
  scramble_page(path,
                pages[static_cast<std::size_t>(
                          random.uniform(0, static_cast<std::int64_t>(pages.size()) - 1))]
                    .number,
                random);
  expect_replaced(folder, path, "corrupt", "quick_check");
}

TEST(DamagedFile, Truncated) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  expect_replaced(folder, path, "corrupt", "damaged or truncated");
}

TEST(DamagedFile, TruncatedWithinTheHeader) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  std::filesystem::resize_file(path, 50);
  expect_replaced(folder, path, "corrupt", "truncated");
}

// Bytes no database starts with (a header overwritten by a crash): set aside as they were.
TEST(DamagedFile, BytesThatAreNoDatabase) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);  // a database was there: its lock file says so
  std::string bytes;
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>(i * 7 % 256);
  write_file(path, bytes);
  expect_replaced(folder, path, "not-a-database", "not a SQLite database");
  EXPECT_EQ(read_file(folder.file(folder.names_starting_with("ucudnn.db.not-a-database-")[0])),
            bytes)
      << "the file set aside is kept as it was";
}

std::vector<std::string> set_aside_files(const TempFolder& folder) {
  auto names = folder.names_starting_with("ucudnn.db.");
  std::erase(names, "ucudnn.db.lock");
  return names;
}

// Another application's file at our path (UCUDNN_DATABASE set by mistake): left exactly as
// it is, the store caches in memory only, one warning names the file.
void expect_left_alone(TempFolder& folder, const std::string& path, const std::string& problem) {
  const auto before = read_file(path);
  Warnings warnings;
  {
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    EXPECT_EQ(store.state(), StoreState::kDisabled);
    store.put_measurements({supported(gpu_fingerprint(), kernel(3), "FFT", 1.0, 10)});
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(3), "cudnn", "FFT"));
    // Said at the open: not again as rows that could not be saved (the shim's exit warning).
    EXPECT_EQ(store.confirm_saved(), std::vector<std::string>{});
  }
  ASSERT_EQ(warnings.count(), 1u) << warnings.all();
  EXPECT_NE(warnings.messages[0].find(path), std::string::npos) << warnings.messages[0];
  EXPECT_NE(warnings.messages[0].find(problem), std::string::npos) << warnings.messages[0];
  EXPECT_EQ(read_file(path), before) << "not one byte changed";
  EXPECT_EQ(set_aside_files(folder), std::vector<std::string>{}) << "nothing set aside";
}

TEST(DamagedFile, AnotherApplicationsDatabaseIsLeftAlone) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  {
    auto raw = raw_connection(path);
    raw.execute("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')");
  }
  expect_left_alone(folder, path, "another application's SQLite database");
}

// A text file at the database's path is the user's (UCUDNN_DATABASE or ucudnnSetDatabase naming
// a script or a network file by a slip), never a damaged database: it used to be renamed aside
// and replaced by a database.
TEST(DamagedFile, ATextFileIsLeftAlone) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  std::string text = "# -*- coding: utf-8 -*- train.py \xc3\xa9\n";
  for (int i = 0; i < 200; ++i)
    text += "\tthis is not a database, line " + std::to_string(i) + "\r\n";
  write_file(path, text);
  expect_left_alone(folder, path, "a text file, not a SQLite database");
}

// Bytes that are no database, where no ucudnn database has been (a checkpoint or a tensor dump
// named by a slip): the user's, left exactly as they are. Such a file used to be renamed aside
// and replaced by a database, so that the program it belongs to no longer found it.
TEST(DamagedFile, ABinaryFileOfTheUsersIsLeftAlone) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  std::string bytes = "PK\x03\x04";
  for (int i = 0; i < 5000; ++i) bytes += static_cast<char>(i * 7 % 256);
  write_file(path, bytes);
  expect_left_alone(folder, path, "nothing beside it says that a ucudnn database has been there");
  EXPECT_FALSE(db::FileLease::database_was_held(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".lock")) << "nothing made beside the user's file";
  // Zeros are what a crash leaves, and a SQLite header with bad fields is a database's: damage,
  // set aside, though the lock file says nothing (a database of an older ucudnn).
  std::string header_kept(1024, '\x7f');
  header_kept.replace(0, 16, std::string("SQLite format 3\0", 16));
  for (const std::string& damaged : {std::string(5000, '\0'), header_kept}) {
    write_file(path, damaged);
    expect_replaced(folder, path, "not-a-database", "not a SQLite database");
    std::filesystem::remove(path);
    std::filesystem::remove(path + ".lock");
    for (const auto& name : folder.names_starting_with("ucudnn.db.not-a-database-"))
      std::filesystem::remove(folder.file(name));
  }
  // Once a store has held a database at the path, bytes there are damage.
  std::filesystem::remove(path);
  { SqliteStore store(path); }
  EXPECT_TRUE(db::FileLease::database_was_held(path));
  write_file(path, bytes);
  expect_replaced(folder, path, "not-a-database", "not a SQLite database");
}

// A database cut short within its header reads as text, but is damage: set aside.
TEST(DamagedFile, ADatabaseCutWithinItsHeaderIsNoTextFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  write_file(path, "SQLite form");
  expect_replaced(folder, path, "not-a-database", "not a SQLite database");
}

TEST(DamagedFile, AnotherApplicationIdIsLeftAlone) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  {
    auto raw = raw_connection(path);
    raw.execute("PRAGMA application_id = 1234; CREATE TABLE t (x)");
  }
  expect_left_alone(folder, path, "application_id 1234");
}

// Two ucudnn versions sharing ~/.cache: the older one reads the newer one's results and
// changes nothing.
TEST(DamagedFile, ANewerSchemaIsReadNotChanged) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  {
    auto raw = raw_connection(path);
    raw.execute(
        "ALTER TABLE measurements ADD COLUMN from_the_future TEXT; "
        "PRAGMA user_version = 99");
  }
  const auto before = read_file(path);
  Warnings warnings;
  {
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    EXPECT_EQ(store.state(), StoreState::kReadOnly);
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(7, 0), "cudnn", "FFT"));
    EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan());
    store.put_measurements({supported(gpu_fingerprint(), kernel(401), "FFT", 1.0, 10)});
  }
  ASSERT_EQ(warnings.count(), 1u) << warnings.all();
  EXPECT_NE(warnings.messages[0].find(path), std::string::npos) << warnings.messages[0];
  EXPECT_NE(warnings.messages[0].find("schema version 99"), std::string::npos)
      << warnings.messages[0];
  EXPECT_NE(warnings.messages[0].find("this ucudnn knows " + std::to_string(db::schema_version())),
            std::string::npos)
      << warnings.messages[0];
  EXPECT_EQ(read_file(path), before) << "not one byte changed";
  EXPECT_EQ(set_aside_files(folder), std::vector<std::string>{});
}

TEST(DamagedFile, ANewerSchemaThatCannotBeReadIsLeftAlone) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  {
    auto raw = raw_connection(path);
    raw.execute("ALTER TABLE plans RENAME TO plans_v99; PRAGMA user_version = 99");
  }
  expect_left_alone(folder, path, "schema version 99");
}

TEST(DamagedFile, MissingTables) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  {
    auto raw = raw_connection(path);
    raw.execute("DROP TABLE plans");
  }
  expect_replaced(folder, path, "corrupt", "missing");
}

TEST(DamagedFile, AnEmptyFileIsAFreshDatabase) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  write_file(path, "");
  Warnings warnings;
  SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
  EXPECT_EQ(store.state(), StoreState::kReadWrite);
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
  EXPECT_EQ(set_aside_files(folder), std::vector<std::string>{});
}

TEST(DamagedFile, AStaleJournalGoesAsideWithItsFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  write_file(path, std::string(70, '\x02'));
  write_file(path + "-journal", "a journal that belongs to the garbage");
  expect_replaced(folder, path, "not-a-database", "not a SQLite database");
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"))
      << "a journal next to the fresh file would be played back into it";
}

TEST(DamagedFile, TheDefaultWarningGoesToStandardError) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  write_file(path, std::string(5000, '\x01'));
  ::testing::internal::CaptureStderr();
  { SqliteStore store(path); }
  const auto output = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(output.rfind("ucudnn: warning: benchmark database " + path, 0), 0u) << output;
  EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
}

}  // namespace
}  // namespace ucudnn
