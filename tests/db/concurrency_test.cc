// Several processes on one database file, as several training jobs on one node (or one
// shared home folder) are: nothing is lost and nothing fails.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>

#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

// Forks `processes` children running `body(index)`; each exits with the code it returns.
// They start together: each waits on a pipe that the parent closes once all exist, so that
// they really race.
void run_processes(int processes, const std::function<int(int)>& body) {
  int barrier[2];
  ASSERT_EQ(::pipe(barrier), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < processes; ++i) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ::close(barrier[1]);
      char byte;
      while (::read(barrier[0], &byte, 1) < 0 && errno == EINTR) {
      }
      int code = 2;
      try {
        code = body(i);
      } catch (...) {
      }
      ::_exit(code);
    }
    children.push_back(child);
  }
  ::close(barrier[0]);
  ::close(barrier[1]);
  for (std::size_t i = 0; i < children.size(); ++i) {
    int status = 0;
    ASSERT_EQ(::waitpid(children[i], &status, 0), children[i]);
    ASSERT_TRUE(WIFEXITED(status)) << "process " << i << " died";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "process " << i << " failed";
  }
}

MeasurementRecord record_of(int process, int write) {
  return supported(gpu_fingerprint(), kernel(1 + write, process), "FFT", process + write * 0.001,
                   static_cast<std::uint64_t>(process * 1000 + write));
}

TEST(Concurrency, EightProcessesWritingAtOnceLoseNothing) {
  constexpr int kProcesses = 8, kWrites = 500;
  TempFolder folder;
  const auto path = folder.file("shared/ucudnn.db");
  // No database yet: the processes also race to create it.
  run_processes(kProcesses, [&](int process) {
    SqliteStore store(path);
    if (store.state() != StoreState::kReadWrite) return 3;
    for (int write = 0; write < kWrites; ++write) {
      store.put_measurements({record_of(process, write)});
      // Readers in between, as the planner does.
      if (write % 10 == 0 &&
          !store.find_measurement(gpu_fingerprint(), kernel(1 + write, process), "cudnn", "FFT"))
        return 4;
    }
    if (store.failed_writes() != 0) return 5;
    return 0;
  });

  Warnings warnings;
  SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
  for (int process = 0; process < kProcesses; ++process)
    for (int write = 0; write < kWrites; ++write) {
      auto found =
          store.find_measurement(gpu_fingerprint(), kernel(1 + write, process), "cudnn", "FFT");
      ASSERT_TRUE(found) << "process " << process << " write " << write << " was lost";
      expect_same(found->measurement, record_of(process, write).measurement);
    }
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder.path() / "shared"))
    files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"ucudnn.db", "ucudnn.db.lock"}))
      << "nothing was set aside";
}

// Eight processes open one damaged file at the same moment, each looking up and writing as
// the planner does. Exactly one sets it aside, keeping the damaged bytes exactly; every
// process ends read-write, and every row any of them wrote is in the fresh file. (Before:
// a process could judge a fresh file half-way through another's migration as foreign and
// set it aside with the rows in it, or read a rename as "not writable".)
void expect_race_survived(const std::string& damaged_bytes, const std::string& tag) {
  constexpr int kProcesses = 8, kWrites = 20;
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  { SqliteStore held(path); }  // a database was there: its lock file says so
  write_file(path, damaged_bytes);
  run_processes(kProcesses, [&](int process) {
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, nullptr));
    if (store.state() != StoreState::kReadWrite) return 3;
    for (int write = 0; write < kWrites; ++write) {
      if (store.find_measurement(gpu_fingerprint(), kernel(1 + write, process), "cudnn", "FFT"))
        return 4;  // nobody else writes this process's kernels
      store.put_measurements({record_of(process, write)});
    }
    if (store.state() != StoreState::kReadWrite) return 6;
    return store.failed_writes() == 0 ? 0 : 5;
  });
  const auto aside = folder.names_starting_with("ucudnn.db." + tag + "-");
  ASSERT_EQ(aside.size(), 1u) << "exactly one process sets the file aside";
  EXPECT_EQ(read_file(folder.file(aside[0])), damaged_bytes)
      << "the file set aside keeps exactly what was damaged";
  EXPECT_FALSE(std::filesystem::exists(path + "-journal")) << "no journal left behind";
  Warnings warnings;
  SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
  EXPECT_EQ(store.state(), StoreState::kReadWrite);
  for (int process = 0; process < kProcesses; ++process)
    for (int write = 0; write < kWrites; ++write)
      EXPECT_TRUE(
          store.find_measurement(gpu_fingerprint(), kernel(1 + write, process), "cudnn", "FFT"))
          << "process " << process << " write " << write << " was lost";
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

TEST(Concurrency, ProcessesOpeningOneCorruptFileAllEndUpWorking) {
  expect_race_survived(std::string(100000, '\x01'), "not-a-database");
}

TEST(Concurrency, ProcessesOpeningOneTruncatedDatabaseAllEndUpWorking) {
  TempFolder folder;
  const auto path = folder.file("full.db");
  {
    SqliteStore store(path);
    std::vector<MeasurementRecord> records;
    for (int b = 1; b <= 300; ++b) records.push_back(record_of(100 + b % 5, b));
    store.put_measurements(records);
  }
  auto bytes = read_file(path);
  bytes.resize(bytes.size() / 2);
  expect_race_survived(bytes, "corrupt");
}

}  // namespace
}  // namespace ucudnn
