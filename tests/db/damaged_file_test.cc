// A bad database file never stops the application: it is set aside, with one warning, and
// a fresh database takes its place.
#include <gtest/gtest.h>

#include <filesystem>

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
// "<name>.<tag>-<time>", and a working, empty store in its place.
void expect_replaced(TempFolder& folder, const std::string& path, const std::string& tag,
                     const std::string& problem) {
  Warnings warnings;
  {
    SqliteStore store(path, {false, warnings.sink()});
    ASSERT_EQ(store.state(), StoreState::kReadWrite) << warnings.all();
    ASSERT_EQ(warnings.count(), 1u) << warnings.all();
    EXPECT_NE(warnings.messages[0].find(path), std::string::npos) << warnings.messages[0];
    EXPECT_NE(warnings.messages[0].find(problem), std::string::npos) << warnings.messages[0];
    auto aside = folder.names_starting_with(std::filesystem::path(path).filename().string() + "." +
                                            tag + "-");
    std::erase_if(aside, [](const std::string& name) { return name.ends_with("-journal"); });
    EXPECT_EQ(aside.size(), 1u) << warnings.all();

    EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(1, 1), "cudnn", "FFT"));
    store.put_measurements({supported(gpu_fingerprint(), kernel(3), "FFT", 1.0, 10)});
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
    EXPECT_EQ(store.failed_writes(), 0u);
  }
  SqliteStore again(path, {false, warnings.sink()});
  EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(3), "cudnn", "FFT"));
  EXPECT_EQ(again.find_plan(plan_key(gpu_fingerprint())), sample_plan());
  EXPECT_EQ(warnings.count(), 1u) << "the fresh file is fine: " << warnings.all();
}

TEST(DamagedFile, RandomBytesInTheMiddle) {
  SeededRandom random;
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  auto bytes = read_file(path);
  const std::size_t page = 4096, pages = bytes.size() / page;
  ASSERT_GT(pages, 10u);
  // A whole page of noise somewhere past the first page.
  const auto victim =
      static_cast<std::size_t>(random.uniform(1, static_cast<std::int64_t>(pages) - 1));
  for (std::size_t i = 0; i < page; ++i)
    bytes[victim * page + i] = static_cast<char>(random.uniform(0, 255));
  write_file(path, bytes);
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

TEST(DamagedFile, ATextFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  std::string text;
  for (int i = 0; i < 200; ++i) text += "this is not a database, line " + std::to_string(i) + "\n";
  write_file(path, text);
  expect_replaced(folder, path, "not-a-database", "not a SQLite database");
  EXPECT_EQ(read_file(folder.file(folder.names_starting_with("ucudnn.db.not-a-database-")[0])),
            text)
      << "the file set aside is kept as it was";
}

TEST(DamagedFile, AnotherApplicationsDatabase) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  {
    auto raw = raw_connection(path);
    raw.execute("CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada')");
  }
  expect_replaced(folder, path, "foreign", "another application's SQLite database");
}

TEST(DamagedFile, AnotherApplicationId) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  {
    auto raw = raw_connection(path);
    raw.execute("PRAGMA application_id = 1234; CREATE TABLE t (x)");
  }
  expect_replaced(folder, path, "foreign", "application_id 1234");
}

TEST(DamagedFile, ANewerSchema) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  {
    auto raw = raw_connection(path);
    raw.execute("PRAGMA user_version = 99");
  }
  expect_replaced(folder, path, "newer-schema", "schema version 99 is newer");
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
  SqliteStore store(path, {false, warnings.sink()});
  EXPECT_EQ(store.state(), StoreState::kReadWrite);
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
  EXPECT_TRUE(folder.names_starting_with("ucudnn.db.").empty());
}

TEST(DamagedFile, AStaleJournalGoesAsideWithItsFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  write_file(path, "garbage garbage garbage garbage garbage garbage garbage garbage garbage");
  write_file(path + "-journal", "a journal that belongs to the garbage");
  expect_replaced(folder, path, "not-a-database", "not a SQLite database");
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"))
      << "a journal next to the fresh file would be played back into it";
}

TEST(DamagedFile, TheDefaultWarningGoesToStandardError) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  write_file(path, std::string(5000, '\x01'));
  ::testing::internal::CaptureStderr();
  { SqliteStore store(path); }
  const auto output = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(output.rfind("ucudnn: warning: benchmark database " + path, 0), 0u) << output;
  EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
}

}  // namespace
}  // namespace ucudnn
