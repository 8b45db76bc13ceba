#pragma once
// What the db tests share: a temporary folder removed afterwards, sample keys and records,
// a warning sink that collects, raw access to a database file (to damage or poison it the
// way a crash, a bug or a hostile user would), and running a check as an unprivileged user
// (root ignores file permissions, and these tests often run as root in containers).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <string>
#include <vector>

#include "core/benchmark_store.h"
#include "core/device_fingerprint.h"
#include "db/sqlite.h"
#include "db/sqlite_store.h"
#include "db/warning.h"
#include "support/file_text.h"
#include "support/temp_folder.h"

namespace ucudnn::testing {

// A store's options with everything else at its defaults.
inline SqliteStoreOptions store_options(StoreAccess access, WarningSink warn) {
  SqliteStoreOptions options;
  options.access = access;
  options.warn = std::move(warn);
  if (access == StoreAccess::kShared) options.role = "system benchmark database";
  return options;
}

// Collects warnings instead of printing them.
struct Warnings {
  WarningSink sink() {
    return [this](const std::string& message) {
      std::lock_guard lock(mutex);
      messages.push_back(message);
    };
  }
  std::size_t count() {
    std::lock_guard lock(mutex);
    return messages.size();
  }
  std::string all() {
    std::lock_guard lock(mutex);
    std::string text;
    for (const auto& m : messages) text += m + "\n";
    return text;
  }
  std::mutex mutex;
  std::vector<std::string> messages;
};

inline std::string gpu_fingerprint(const std::string& name = "NVIDIA H100 80GB HBM3") {
  return DeviceFingerprint{{{"kind", "gpu"},
                            {"name", name},
                            {"cc", "9.0"},
                            {"sms", "132"},
                            {"memory", "85045231616"},
                            {"cudnn", "91900"},
                            {"ucudnn", kUcudnnVersion}}}
      .to_string();
}

inline std::string cpu_fingerprint() {
  return DeviceFingerprint{{{"kind", "cpu"}, {"model", "Xeon; AVX-512"}, {"cores", "2"}}}
      .to_string();
}

// Distinct kernels: `variant` changes the channel count, `batch` the batch.
inline KernelKey kernel(std::int64_t batch, int variant = 0,
                        Operation operation = Operation::kForward) {
  return KernelKey{operation, make_conv2d_problem({batch, 8 + variant, 16, 16, 8, 3, 3, 1, 1})};
}

inline MeasurementRecord supported(const std::string& fingerprint, const KernelKey& key,
                                   const std::string& algorithm, double time_ms,
                                   std::uint64_t workspace, std::int64_t measured_at = 0) {
  return MeasurementRecord{fingerprint,
                           key,
                           "cudnn",
                           algorithm,
                           Measurement{time_ms, workspace, time_ms * 0.9, time_ms * 1.2, 5},
                           measured_at};
}

inline MeasurementRecord unsupported(const std::string& fingerprint, const KernelKey& key,
                                     const std::string& algorithm, std::int64_t measured_at = 0) {
  return MeasurementRecord{fingerprint, key, "cudnn", algorithm, std::nullopt, measured_at};
}

inline std::vector<Configuration> sample_plan(std::int64_t batch = 32) {
  Configuration c;
  c.micro.push_back({"cudnn", "FFT", batch / 2, 1.25, 1 << 20});
  c.micro.push_back({"cudnn", "IMPLICIT_GEMM", batch - batch / 2, 2.5, 0});
  return {c};
}

inline PlanKey plan_key(const std::string& fingerprint, std::int64_t batch = 32,
                        std::uint64_t limit = 64 << 20) {
  return PlanKey{fingerprint, kernel(batch).to_string(), "powerOfTwo", limit, "WR"};
}

// A small database of every kind of row: two devices, a supported and an unsupported
// measurement, a WR and a WD plan.
inline void fill_sample(const std::string& path) {
  SqliteStore store(path);
  store.put_measurements(
      {supported(gpu_fingerprint(), kernel(4), "FFT", 0.1 + 0.2, 1ull << 40, 1700000000),
       unsupported(gpu_fingerprint(), kernel(4), "WINOGRAD", 1700000001),
       supported(cpu_fingerprint(), kernel(2, 3, Operation::kBackwardFilter), "im2col", 12.5, 0,
                 1700000002)});
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan(32));
  store.put_plan(PlanKey{cpu_fingerprint(), "network:alexnet@2", "all", ~0ull, "WD"},
                 {sample_plan(2)[0], sample_plan(2)[0]});
}

inline void expect_same(const std::optional<Measurement>& a, const std::optional<Measurement>& b) {
  ASSERT_EQ(a.has_value(), b.has_value());
  if (!a) return;
  EXPECT_EQ(a->time_ms, b->time_ms);
  EXPECT_EQ(a->workspace_bytes, b->workspace_bytes);
  EXPECT_EQ(a->min_ms, b->min_ms);
  EXPECT_EQ(a->max_ms, b->max_ms);
  EXPECT_EQ(a->repeats, b->repeats);
}

// A plain connection to a database file, without ucudnn's checks: to damage and poison.
inline sqlite::Connection raw_connection(const std::string& path) {
  return sqlite::Connection::open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
}

// One page of a table's b-tree (SQLite's dbstat): its number (1-based), "leaf" or "internal",
// and how many cells (rows, in a leaf) it holds.
struct TablePage {
  std::int64_t number = 0;
  std::string type;
  std::int64_t cells = 0;
};
inline std::vector<TablePage> pages_of(const std::string& path, const std::string& table) {
  auto raw = raw_connection(path);
  auto statement = raw.prepare("SELECT pageno, pagetype, ncell FROM dbstat WHERE name = ?1");
  auto cursor = statement.start();
  cursor.bind(1, table);
  std::vector<TablePage> pages;
  while (cursor.step()) pages.push_back({cursor.integer(0), cursor.text(1), cursor.integer(2)});
  return pages;
}

// Random bytes over one page of the file (4 KiB pages, SQLite's default), as a disk fault.
template <typename Random>
void scramble_page(const std::string& path, std::int64_t number, Random& random) {
  auto bytes = read_file(path);
  const std::size_t page = 4096;
  for (std::size_t i = 0; i < page; ++i)
    bytes[static_cast<std::size_t>(number - 1) * page + i] =
        static_cast<char>(random.uniform(0, 255));
  write_file(path, bytes);
}

// Runs `body` in a child process whose test failures fail this test: for process-wide
// changes (a default SQLite VFS, resource limits) and for faults that end the process.
inline void in_child_process(const std::function<void()>& body) {
  std::fflush(nullptr);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    body();
    std::fflush(nullptr);
    ::_exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child died";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child failed (its output is above)";
}

// Another process holding the database's exclusive lock (as `ucudnn db vacuum` or a merge
// does) for `milliseconds`; the constructor returns once the lock is held.
class LockHolder {
 public:
  LockHolder(const std::string& path, int milliseconds) {
    int ready[2];
    if (::pipe(ready) != 0) throw std::runtime_error("pipe failed");
    std::fflush(nullptr);
    child_ = ::fork();
    if (child_ == 0) {
      ::close(ready[0]);
      int code = 0;
      try {
        auto connection = raw_connection(path);
        connection.execute("BEGIN EXCLUSIVE");
        (void)!::write(ready[1], "x", 1);
        ::usleep(static_cast<useconds_t>(milliseconds) * 1000);
        connection.execute("COMMIT");
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    ::close(ready[1]);
    char byte = 0;
    const bool held = ::read(ready[0], &byte, 1) == 1;
    ::close(ready[0]);
    if (!held) throw std::runtime_error("the lock holder failed");
  }
  ~LockHolder() { wait(); }
  LockHolder(const LockHolder&) = delete;
  LockHolder& operator=(const LockHolder&) = delete;
  void wait() {
    if (child_ > 0) ::waitpid(child_, nullptr, 0);
    child_ = -1;
  }

 private:
  pid_t child_ = -1;
};

// Runs `body` as user nobody when this process is root, in a child process whose test
// failures fail this test; as is otherwise.
inline void as_unprivileged_user(const std::function<void()>& body) {
  if (::geteuid() != 0) return body();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
    body();
    std::fflush(nullptr);
    ::_exit(::testing::Test::HasFailure() ? 1 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the unprivileged child died";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the unprivileged child failed (its output is above)";
}

}  // namespace ucudnn::testing
