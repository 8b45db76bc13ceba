// Where the database cannot be written, the application runs on, with one warning: from a
// read-only file it still reads; without any usable file it caches nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;
namespace fs = std::filesystem;

// Without a usable file, what the process learns stays in its memory: it is not measured
// again in this process, and nothing reaches a file.
void expect_no_caching(SqliteStore& store) {
  EXPECT_EQ(store.state(), StoreState::kDisabled);
  EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT"));
  store.put_measurements({supported(gpu_fingerprint(), kernel(2), "FFT", 1.0, 10)});
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
  EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT"));
  EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan());
  EXPECT_EQ(store.failed_writes(), 0u) << "not saving is the plan, not a failure";
}

TEST(Access, AFolderThatCannotBeCreated) {
  TempFolder folder;
  write_file(folder.file("file"), "a file where a folder should be");
  const auto path = folder.file("file/cache/ucudnn.db");
  Warnings warnings;
  SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
  expect_no_caching(store);
  ASSERT_EQ(warnings.count(), 1u) << warnings.all();
  EXPECT_NE(warnings.messages[0].find(folder.file("file/cache")), std::string::npos)
      << warnings.messages[0];
  EXPECT_NE(warnings.messages[0].find("running without a benchmark cache"), std::string::npos);
}

TEST(Access, AReadOnlyFolderWithoutADatabase) {
  TempFolder folder;
  fs::create_directory(folder.file("locked"));
  fs::permissions(folder.file("locked"), fs::perms::owner_read | fs::perms::owner_exec |
                                             fs::perms::group_read | fs::perms::group_exec |
                                             fs::perms::others_read | fs::perms::others_exec);
  const auto path = folder.file("locked/ucudnn.db");
  as_unprivileged_user([&] {
    Warnings warnings;
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    expect_no_caching(store);
    EXPECT_EQ(warnings.count(), 1u) << warnings.all();
    EXPECT_NE(warnings.all().find("not writable"), std::string::npos) << warnings.all();
    EXPECT_FALSE(fs::exists(path));
  });
}

// A database someone else filled, in a folder or a file this user cannot write: its results
// are used, new ones are dropped.
void expect_read_only_use(const std::string& path) {
  as_unprivileged_user([&] {
    Warnings warnings;
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    EXPECT_EQ(store.state(), StoreState::kReadOnly);
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT"));
    EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan());
    store.put_measurements({supported(gpu_fingerprint(), kernel(5), "FFT", 1.0, 10)});
    store.put_plan(plan_key(cpu_fingerprint()), sample_plan());
    // Kept in this process's memory, never written.
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(5), "cudnn", "FFT"));
    EXPECT_EQ(store.failed_writes(), 0u) << "not saving is the plan, not a failure";
    ASSERT_EQ(warnings.count(), 1u) << warnings.all();
    EXPECT_NE(warnings.messages[0].find("read-only"), std::string::npos) << warnings.all();
  });
}

void fill(const std::string& path) {
  SqliteStore store(path);
  store.put_measurements({supported(gpu_fingerprint(), kernel(2), "FFT", 1.0, 10)});
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
}

TEST(Access, AReadOnlyFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  fs::permissions(path, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  const auto before = read_file(path);
  expect_read_only_use(path);
  EXPECT_EQ(read_file(path), before);
}

TEST(Access, AWritableFileInAReadOnlyFolder) {
  TempFolder folder;
  fs::create_directory(folder.file("locked"));
  const auto path = folder.file("locked/ucudnn.db");
  fill(path);
  fs::permissions(path, fs::perms::all);  // SQLite would still need the folder for its journal
  fs::permissions(folder.file("locked"), fs::perms::owner_read | fs::perms::owner_exec |
                                             fs::perms::others_read | fs::perms::others_exec);
  const auto before = read_file(path);
  expect_read_only_use(path);
  EXPECT_EQ(read_file(path), before);
}

// The maintenance commands in the same place: SQLite's own message blames the database ("attempt
// to write a readonly database"); the folder is named as the cause.
TEST(Access, VacuumInAReadOnlyFolderNamesTheFolder) {
  TempFolder folder;
  fs::create_directory(folder.file("locked"));
  const auto path = folder.file("locked/ucudnn.db");
  fill(path);
  fs::permissions(path, fs::perms::all);
  fs::permissions(folder.file("locked"), fs::perms::owner_read | fs::perms::owner_exec |
                                             fs::perms::others_read | fs::perms::others_exec);
  as_unprivileged_user([&] {
    const auto vacuumed = db::vacuum_database(path);
    ASSERT_FALSE(vacuumed);
    EXPECT_NE(vacuumed.error().find("(the folder '" + folder.file("locked") +
                                    "' cannot be written, and SQLite makes its journal beside the "
                                    "database)"),
              std::string::npos)
        << vacuumed.error();
  });
}

// What the tool's outputs never write over: a file with SQLite's header, not an empty one (as
// has_database_header takes it, for opening), an unreadable or a missing one.
TEST(Access, ADatabaseFileIsOneWithSQLitesHeader) {
  TempFolder folder;
  fill(folder.file("a.db"));
  write_file(folder.file("empty"), "");
  write_file(folder.file("text"), "<html></html>");
  write_file(folder.file("cut"), "SQLite form");
  EXPECT_TRUE(db::is_database_file(folder.file("a.db")));
  for (const char* name : {"empty", "text", "cut", "missing"})
    EXPECT_FALSE(db::is_database_file(folder.file(name))) << name;
  EXPECT_TRUE(db::has_database_header(folder.file("empty")));
}

TEST(Access, AnUnreadableFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  fs::permissions(path, fs::perms::owner_write);
  as_unprivileged_user([&] {
    Warnings warnings;
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    expect_no_caching(store);
    EXPECT_EQ(warnings.count(), 1u) << warnings.all();
  });
  EXPECT_TRUE(fs::exists(path)) << "a file that cannot be read is not set aside";
}

}  // namespace
}  // namespace ucudnn
