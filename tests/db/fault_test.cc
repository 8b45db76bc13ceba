// A full disk (ENOSPC, injected below SQLite; EFBIG, for real through RLIMIT_FSIZE) and a
// process killed in the middle of a commit leave a valid file that holds every earlier row;
// the job goes on with one warning; and every reader works right after the fault, also one
// that may not write (a hot journal is rolled back for it, or in a private copy).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <csignal>
#include <filesystem>
#include <sstream>

#include "db/maintenance/commands.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"
#include "fault_vfs.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;
namespace fs = std::filesystem;

std::vector<MeasurementRecord> rows(int first, int count) {
  std::vector<MeasurementRecord> records;
  for (int b = first; b < first + count; ++b)
    records.push_back(supported(gpu_fingerprint(), kernel(b, b % 5), "FFT", b * 0.01,
                                static_cast<std::uint64_t>(b)));
  return records;
}

constexpr int kEarlier = 200;  // rows 1..200: committed before the fault
constexpr int kLater = 300;    // rows 201..500: written when it strikes

// Every earlier row, none of the later ones, and `ucudnn db check` finds nothing wrong.
void expect_earlier_rows_only(const std::string& path, StoreAccess access) {
  Warnings warnings;
  SqliteStore store(path, store_options(access, warnings.sink()));
  ASSERT_NE(store.state(), StoreState::kDisabled) << warnings.all();
  for (const auto& record : rows(1, kEarlier))
    ASSERT_TRUE(store.find_measurement(record.fingerprint, record.kernel, "cudnn", "FFT"))
        << record.kernel.to_string();
  for (const auto& record : rows(kEarlier + 1, kLater))
    ASSERT_FALSE(store.find_measurement(record.fingerprint, record.kernel, "cudnn", "FFT"));
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

void expect_healthy(const std::string& path) {
  auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  EXPECT_TRUE(report->ok()) << report->problems.front();
  EXPECT_EQ(report->measurements_checked, static_cast<std::size_t>(kEarlier));
}

TEST(Faults, AFullDiskKeepsTheResultsAndSavesThemWhenThereIsRoomAgain) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  in_child_process([&] {
    arm_faults({});
    Warnings warnings;
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    store.put_measurements(rows(1, kEarlier));
    arm_faults({.full_after_bytes = 0});
    store.put_measurements(rows(kEarlier + 1, kLater));
    store.put_measurements(rows(kEarlier + kLater + 1, 1));
    EXPECT_EQ(store.failed_writes(), static_cast<std::size_t>(kLater + 1));
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(kEarlier + 7, 2), "cudnn", "FFT"))
        << "the job goes on with what it learned";
    ASSERT_EQ(warnings.count(), 1u) << warnings.all();
    EXPECT_NE(warnings.messages[0].find("database or disk is full"), std::string::npos)
        << warnings.all();
    disarm_faults();
    store.flush();
    EXPECT_EQ(store.failed_writes(), 0u);
    EXPECT_EQ(warnings.count(), 1u) << warnings.all();
  });
  auto report = db::check_database(path);
  ASSERT_TRUE(report) << report.error();
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->measurements_checked, static_cast<std::size_t>(kEarlier + kLater + 1));
}

TEST(Faults, ADiskThatStaysFullLeavesAValidFileWithEveryEarlierRow) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  in_child_process([&] {
    arm_faults({});
    Warnings warnings;
    {
      SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
      store.put_measurements(rows(1, kEarlier));
      arm_faults({.full_after_bytes = 4096});  // part of the commit gets through
      store.put_measurements(rows(kEarlier + 1, kLater));
      EXPECT_GT(store.failed_writes(), 0u);
    }  // closing tries once more, and fails the same way
    EXPECT_EQ(warnings.count(), 1u) << warnings.all();
  });
  EXPECT_FALSE(fs::exists(path + "-journal")) << "the failed commit was rolled back";
  expect_healthy(path);
  expect_earlier_rows_only(path, StoreAccess::kReadOnly);
}

TEST(Faults, AFileSizeLimitForRealLeavesAValidFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  { SqliteStore(path).put_measurements(rows(1, kEarlier)); }
  in_child_process([&] {
    Warnings warnings;
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    ASSERT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(3, 3), "cudnn", "FFT"));
    // From here on no file may grow: writes beyond the limit fail with EFBIG.
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{static_cast<rlim_t>(fs::file_size(path)),
                       static_cast<rlim_t>(fs::file_size(path))};
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
    store.put_measurements(rows(kEarlier + 1, kLater));
    EXPECT_EQ(store.failed_writes(), static_cast<std::size_t>(kLater));
    EXPECT_EQ(warnings.count(), 1u) << warnings.all();
  });
  expect_healthy(path);
  expect_earlier_rows_only(path, StoreAccess::kReadOnly);
}

// A writer killed in the middle of its commit, after its journal was synced and one page of
// the file written: the journal beside the file is hot. Saves the damaged pair to `pristine`.
void kill_a_writer(const std::string& path, const std::string& pristine) {
  { SqliteStore(path).put_measurements(rows(1, kEarlier)); }
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    arm_faults({});  // the store's connection must open through the wrapper
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, nullptr));
    store.find_measurement(gpu_fingerprint(), kernel(1, 1), "cudnn", "FFT");
    arm_faults({.kill_at_write = 2});
    store.put_measurements(rows(kEarlier + 1, kLater));
    ::_exit(0);  // not reached: the commit kills it
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the writer was not killed";
  ASSERT_TRUE(fs::exists(path + "-journal")) << "no hot journal: the fault did not happen";
  ASSERT_GT(fs::file_size(path + "-journal"), 0u);
  fs::copy_file(path, pristine);
  fs::copy_file(path + "-journal", pristine + "-journal");
}

void restore(const std::string& pristine, const std::string& path) {
  fs::copy_file(pristine, path, fs::copy_options::overwrite_existing);
  fs::copy_file(pristine + "-journal", path + "-journal", fs::copy_options::overwrite_existing);
}

TEST(Faults, EveryReaderWorksRightAfterAWriterWasKilled) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  const auto pristine = folder.file("pristine.db");
  kill_a_writer(path, pristine);

  // Before: each of these failed with "attempt to write a readonly database" until some
  // writer happened to roll the journal back.
  expect_healthy(path);  // ucudnn db check
  restore(pristine, path);
  {
    std::ostringstream out;
    auto exported = db::export_database(path, out, db::ExportLayout::kLines);  // db export
    ASSERT_TRUE(exported) << exported.error();
    EXPECT_EQ(exported->measurements, static_cast<std::size_t>(kEarlier));
  }
  restore(pristine, path);
  {
    auto info = db::database_info(path);  // db info
    ASSERT_TRUE(info) << info.error();
    EXPECT_EQ(info->measurements, static_cast<std::size_t>(kEarlier));
  }
  restore(pristine, path);
  expect_earlier_rows_only(path, StoreAccess::kReadOnly);  // ucudnn plan
  restore(pristine, path);
  expect_earlier_rows_only(path, StoreAccess::kShared);  // a system database
  restore(pristine, path);
  expect_earlier_rows_only(path, StoreAccess::kReadWrite);  // the next job
  {
    SqliteStore store(path);
    store.put_measurements(rows(kEarlier + 1, 1));
    EXPECT_EQ(store.failed_writes(), 0u);
  }
  EXPECT_FALSE(fs::exists(path + "-journal"));
}

TEST(Faults, AReaderThatMayNotWriteRollsBackInAPrivateCopy) {
  TempFolder folder;
  fs::create_directory(folder.file("shared"));
  const auto path = folder.file("shared/ucudnn.db");
  kill_a_writer(path, folder.file("pristine.db"));
  const auto file_before = read_file(path);
  const auto journal_before = read_file(path + "-journal");
  fs::permissions(folder.file("shared"), fs::perms::owner_read | fs::perms::owner_exec |
                                             fs::perms::others_read | fs::perms::others_exec);
  as_unprivileged_user([&] {
    expect_earlier_rows_only(path, StoreAccess::kReadOnly);
    expect_earlier_rows_only(path, StoreAccess::kShared);
    auto report = db::check_database(path);
    ASSERT_TRUE(report) << report.error();
    EXPECT_TRUE(report->ok());
  });
  EXPECT_EQ(read_file(path), file_before) << "the shared file is not touched";
  EXPECT_EQ(read_file(path + "-journal"), journal_before);
}

}  // namespace
}  // namespace ucudnn
