// Several processes on one database file, as several training jobs on one node (or one
// shared home folder) are: nothing is lost and nothing fails.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

// Forks `processes` children running `body(index)`; each exits with the code it returns.
void run_processes(int processes, const std::function<int(int)>& body) {
  std::vector<pid_t> children;
  for (int i = 0; i < processes; ++i) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int code = 2;
      try {
        code = body(i);
      } catch (...) {
      }
      ::_exit(code);
    }
    children.push_back(child);
  }
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
  SqliteStore store(path, {false, warnings.sink()});
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
  EXPECT_EQ(files, std::vector<std::string>{"ucudnn.db"}) << "nothing was set aside";
}

TEST(Concurrency, ProcessesOpeningOneCorruptFileAllEndUpWorking) {
  constexpr int kProcesses = 4;
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  write_file(path, std::string(100000, 'x'));
  run_processes(kProcesses, [&](int process) {
    SqliteStore store(path, {false, nullptr});
    if (store.state() != StoreState::kReadWrite) return 3;
    store.put_measurements({record_of(process, 0)});
    return store.failed_writes() == 0 ? 0 : 5;
  });
  EXPECT_GE(folder.names_starting_with("ucudnn.db.not-a-database-").size(), 1u);
  // Only the bad file was set aside, never a fresh one that another process had written.
  SqliteStore store(path);
  EXPECT_EQ(store.state(), StoreState::kReadWrite);
  for (int process = 0; process < kProcesses; ++process)
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(1, process), "cudnn", "FFT"))
        << "process " << process;
}

}  // namespace
}  // namespace ucudnn
