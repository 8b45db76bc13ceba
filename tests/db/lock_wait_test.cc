// Another process holding the database's lock (a `ucudnn db vacuum`, a merge, another job's
// long write) must not stall a training step: the shim waits briefly, then reads proceed
// uncached and writes are kept and saved later. The tool may wait, but says so.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>

#include "db/file_lease.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

void fill(const std::string& path) {
  SqliteStore store(path);
  store.put_measurements({supported(gpu_fingerprint(), kernel(2), "FFT", 1.0, 10)});
}

SqliteStoreOptions shim_like(Warnings& warnings) {
  auto options = store_options(StoreAccess::kReadWrite, warnings.sink());
  options.lock_timeout = std::chrono::milliseconds(100);
  return options;
}

// The tool's store: it waits as long as it must, and says so.
SqliteStoreOptions tool_like(Warnings& warnings, Warnings& notices) {
  auto options = store_options(StoreAccess::kReadWrite, warnings.sink());
  options.notice = notices.sink();
  return options;
}

TEST(LockWait, TheShimWaitsBrieflyThenGoesOnUncachedAndSavesLater) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  Warnings warnings;
  SqliteStore store(path, shim_like(warnings));
  ASSERT_EQ(store.state(), StoreState::kReadWrite);
  {
    LockHolder holder(path, 4000);
    const auto start = Clock::now();
    // The device's rows are locked: the lookup answers "not stored", and measuring goes on.
    EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT"));
    store.put_measurements({supported(gpu_fingerprint(), kernel(3), "FFT", 2.0, 20)});
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
    // The lookup waited 100 ms, the writes another 100 ms each at the most: far below the
    // lock's 4 s (the margin is for a loaded machine).
    EXPECT_LT(seconds_since(start), 1.5);
    EXPECT_EQ(store.failed_writes(), 2u) << "kept in memory, not lost";
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(3), "cudnn", "FFT"));
    EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan());
  }
  ASSERT_EQ(warnings.count(), 2u) << warnings.all();  // the lookup, the writes
  EXPECT_NE(warnings.messages[0].find("locked by another process"), std::string::npos)
      << warnings.all();
  EXPECT_NE(warnings.messages[0].find("waited 0.1 s, UCUDNN_DATABASE_LOCK_TIMEOUT"),
            std::string::npos)
      << "how long, and what sets it: " << warnings.all();
  EXPECT_NE(warnings.messages[1].find("kept in memory and saved later"), std::string::npos)
      << warnings.all();

  // The next planning (flush): the rows are read and everything is saved.
  store.flush();
  EXPECT_EQ(store.failed_writes(), 0u);
  EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT"));
  SqliteStore again(path, store_options(StoreAccess::kReadOnly, warnings.sink()));
  EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(3), "cudnn", "FFT"));
  EXPECT_EQ(again.find_plan(plan_key(gpu_fingerprint())), sample_plan());
  EXPECT_EQ(warnings.count(), 2u) << warnings.all();
}

// A writer that found the file locked through its whole timeout does not wait again at each
// later write (a bench stores every item as it is measured: it would wait the timeout per item,
// three times over with the retries), only once more when it flushes.
TEST(LockWait, AWriterWaitsForALockOnceNotAtEveryWrite) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  Warnings warnings, notices;
  auto options = tool_like(warnings, notices);
  options.lock_timeout = std::chrono::milliseconds(300);
  options.notice_after = std::chrono::milliseconds(0);
  SqliteStore store(path, options);
  store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT");
  {
    LockHolder holder(path, 2500);
    const auto start = Clock::now();
    for (int k = 3; k < 8; ++k)
      store.put_measurements({supported(gpu_fingerprint(), kernel(k), "FFT", 2.0, 20)});
    // One wait of 300 ms; five puts waiting three attempts each would take 4.5 s.
    EXPECT_LT(seconds_since(start), 2.0);
    EXPECT_EQ(notices.count(), 1u) << notices.all();
    EXPECT_EQ(store.failed_writes(), 5u);
    holder.wait();
  }
  store.flush();
  EXPECT_EQ(store.failed_writes(), 0u);
  SqliteStore again(path, store_options(StoreAccess::kReadOnly, warnings.sink()));
  for (int k = 3; k < 8; ++k)
    EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(k), "cudnn", "FFT")) << k;
}

// The shim flushes at every selection: a file whose lock outlasted the timeout once is tried again
// at each without waiting, its rows kept in memory (it used to wait the whole timeout at every
// kernel's selection: 15 kernels, 45 s of a training job with a 3 s timeout).
TEST(LockWait, AFileLockedPastTheTimeoutIsNotWaitedForAtEveryFlush) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  Warnings warnings;
  auto options = shim_like(warnings);
  options.lock_timeout = std::chrono::milliseconds(300);
  std::optional<SqliteStore> store;
  {
    LockHolder holder(path, 5000);
    store.emplace(path, options);  // waits once
    EXPECT_EQ(store->state(), StoreState::kDisabled);
    const auto start = Clock::now();
    for (int k = 3; k < 13; ++k) {
      store->put_measurements({supported(gpu_fingerprint(), kernel(k), "FFT", 2.0, 20)});
      store->flush();
    }
    // Ten flushes waiting 300 ms each would take 3 s.
    EXPECT_LT(seconds_since(start), 1.5);
    EXPECT_EQ(store->state(), StoreState::kDisabled);
    holder.wait();
  }
  store->flush();
  EXPECT_EQ(store->state(), StoreState::kReadWrite);
  SqliteStore again(path, store_options(StoreAccess::kReadOnly, warnings.sink()));
  for (int k = 3; k < 13; ++k)
    EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(k), "cudnn", "FFT")) << k;
  EXPECT_EQ(warnings.count(), 1u) << warnings.all();
}

TEST(LockWait, ALockAtOpenIsRetriedLater) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  Warnings warnings;
  std::optional<SqliteStore> store;
  {
    LockHolder holder(path, 3000);
    const auto start = Clock::now();
    store.emplace(path, shim_like(warnings));
    EXPECT_LT(seconds_since(start), 1.5);
    EXPECT_EQ(store->state(), StoreState::kDisabled);
    store->put_measurements({supported(gpu_fingerprint(), kernel(3), "FFT", 2.0, 20)});
  }
  store->flush();
  EXPECT_EQ(store->state(), StoreState::kReadWrite);
  EXPECT_TRUE(store->find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT"));
  SqliteStore again(path, store_options(StoreAccess::kReadOnly, warnings.sink()));
  EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(3), "cudnn", "FFT"))
      << "what was learned while the file was locked is saved once it is free";
  EXPECT_EQ(warnings.count(), 1u) << warnings.all();
}

TEST(LockWait, UnsavedResultsAreSavedWhenTheStoreCloses) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  Warnings warnings;
  {
    SqliteStore store(path, shim_like(warnings));
    store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT");
    LockHolder holder(path, 1000);
    store.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 2.0, 20)});
    EXPECT_EQ(store.failed_writes(), 1u);
    holder.wait();
  }
  SqliteStore again(path, store_options(StoreAccess::kReadOnly, warnings.sink()));
  EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT"));
}

TEST(LockWait, TheToolSaysWithinASecondOrTwoWhatItWaitsFor) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  Warnings warnings, notices;
  const auto options = tool_like(warnings, notices);
  SqliteStore store(path, options);
  store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT");
  double noticed_at = -1;
  {
    LockHolder holder(path, 3000);
    const auto start = Clock::now();
    // The notice arrives while the write still waits.
    std::thread watcher([&] {
      while (notices.count() == 0 && seconds_since(start) < 10)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      noticed_at = seconds_since(start);
    });
    store.put_measurements({supported(gpu_fingerprint(), kernel(3), "FFT", 2.0, 20)});
    const double done_at = seconds_since(start);
    watcher.join();
    EXPECT_GE(noticed_at, 0.9);
    EXPECT_LT(noticed_at, 2.0);
    EXPECT_GE(done_at, 2.5) << "the tool waits for the lock";
  }
  EXPECT_EQ(store.failed_writes(), 0u);
  ASSERT_EQ(notices.count(), 1u) << notices.all();
  EXPECT_NE(notices.messages[0].find("waiting for " + path), std::string::npos) << notices.all();
  EXPECT_NE(notices.messages[0].find("another process holds its lock"), std::string::npos);
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

// The lease on the side file "<database>.lock" (held exclusively by a process that sets a
// damaged file aside) is waited for with the same notice.
TEST(LockWait, TheToolSaysWhatItWaitsForWhenTheLockFileIsHeld) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path);
  Warnings warnings, notices;
  const auto options = tool_like(warnings, notices);
  auto exclusive =
      db::FileLease::acquire(path, db::FileLease::Mode::kExclusive, std::chrono::seconds(1));
  ASSERT_TRUE(exclusive);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    exclusive.reset();
  });
  const auto start = Clock::now();
  SqliteStore store(path, options);
  const double opened_at = seconds_since(start);
  release.join();
  EXPECT_EQ(store.state(), StoreState::kReadWrite);
  EXPECT_GE(opened_at, 2.0) << "it waited for the lease";
  ASSERT_EQ(notices.count(), 1u) << notices.all();
  EXPECT_NE(notices.messages[0].find("waiting for " + path), std::string::npos) << notices.all();
  EXPECT_NE(notices.messages[0].find("holds its lock file"), std::string::npos) << notices.all();
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

// A system database is read without locks: another process's lock on it costs nothing.
TEST(LockWait, ALockOnTheSystemDatabaseCostsNothing) {
  TempFolder folder;
  const auto path = folder.file("site.db");
  fill(path);
  LockHolder holder(path, 3000);
  Warnings warnings;
  const auto start = Clock::now();
  SqliteStore store(path, store_options(StoreAccess::kShared, warnings.sink()));
  EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(2), "cudnn", "FFT"));
  EXPECT_LT(seconds_since(start), 1.0);
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

}  // namespace
}  // namespace ucudnn
