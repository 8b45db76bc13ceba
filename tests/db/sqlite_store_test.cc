#include "db/sqlite_store.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>

#include "core/micro_table.h"
#include "core/stored_benchmarker.h"
#include "db/schema.h"
#include "db_test_support.h"
#include "support/sqlite_header.h"
#include "support/table_benchmarker.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

TEST(SqliteStore, RoundTripsMeasurementsAcrossReopening) {
  TempFolder folder;
  const auto path = folder.file("sub/dir/ucudnn.db");  // the folders do not exist yet
  const auto gpu = gpu_fingerprint();
  Warnings warnings;
  {
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    ASSERT_EQ(store.state(), StoreState::kReadWrite);
    store.put_measurements({supported(gpu, kernel(16), "FFT", 1.5, 123456789, 1700000000),
                            unsupported(gpu, kernel(16), "WINOGRAD", 1700000001),
                            supported(gpu, kernel(8), "FFT", 0.75, 1000)});
  }
  SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
  auto fft = store.find_measurement(gpu, kernel(16), "cudnn", "FFT");
  ASSERT_TRUE(fft);
  expect_same(fft->measurement,
              supported(gpu, kernel(16), "FFT", 1.5, 123456789, 1700000000).measurement);
  EXPECT_EQ(fft->measured_at, 1700000000);
  EXPECT_EQ(fft->fingerprint, gpu);
  EXPECT_EQ(fft->kernel, kernel(16));
  EXPECT_EQ(fft->backend, "cudnn");
  EXPECT_EQ(fft->algorithm, "FFT");

  auto winograd = store.find_measurement(gpu, kernel(16), "cudnn", "WINOGRAD");
  ASSERT_TRUE(winograd) << "an unsupported result is a result";
  EXPECT_FALSE(winograd->measurement);
  EXPECT_EQ(winograd->measured_at, 1700000001);

  auto filled = store.find_measurement(gpu, kernel(8), "cudnn", "FFT");
  ASSERT_TRUE(filled);
  EXPECT_GT(filled->measured_at, 1700000000) << "a zero measured_at is filled with the time";

  EXPECT_FALSE(store.find_measurement(gpu, kernel(8), "cudnn", "WINOGRAD"));
  EXPECT_FALSE(store.find_measurement(gpu, kernel(16), "cpu", "FFT"));
  EXPECT_FALSE(store.find_measurement(cpu_fingerprint(), kernel(16), "cudnn", "FFT"))
      << "results of another fingerprint are never used";
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

TEST(SqliteStore, RoundTripsPlansExactly) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  const auto gpu = gpu_fingerprint();
  Configuration awkward;
  awkward.micro.push_back(
      {"cudnn", "FFT_TILING", 7, 0.1 + 0.2, std::numeric_limits<std::uint64_t>::max()});
  awkward.micro.push_back({"cpu", "winograd-f4x4", 1, 1e-300, 0});
  const std::vector<Configuration> wd = {sample_plan(32)[0], awkward};
  const PlanKey unlimited{gpu, "network:alexnet@32", "all", kNoWorkspaceLimit, "WD"};
  {
    SqliteStore store(path);
    store.put_plan(plan_key(gpu), sample_plan());
    store.put_plan(unlimited, wd);
    store.put_plan(PlanKey{gpu, "empty", "all", 0, "WD"}, {});
  }
  SqliteStore store(path);
  EXPECT_EQ(store.find_plan(plan_key(gpu)), sample_plan());
  EXPECT_EQ(store.find_plan(unlimited), wd);
  EXPECT_EQ(store.find_plan(PlanKey{gpu, "empty", "all", 0, "WD"}), std::vector<Configuration>{});
  // Every part of the key matters.
  auto other = plan_key(gpu);
  other.workspace_limit += 1;
  EXPECT_FALSE(store.find_plan(other));
  other = plan_key(gpu);
  other.mode = "WD";
  EXPECT_FALSE(store.find_plan(other));
  other = plan_key(gpu);
  other.policy = "all";
  EXPECT_FALSE(store.find_plan(other));
  EXPECT_FALSE(store.find_plan(plan_key(cpu_fingerprint())));

  // A new plan for the same key replaces the old one.
  store.put_plan(plan_key(gpu), {awkward});
  EXPECT_EQ(store.find_plan(plan_key(gpu)), std::vector<Configuration>{awkward});
}

TEST(SqliteStore, TheLaterMeasurementWins) {
  TempFolder folder;
  SqliteStore store(folder.file("ucudnn.db"));
  const auto gpu = gpu_fingerprint();
  store.put_measurements({supported(gpu, kernel(4), "FFT", 2.0, 10, 2000)});
  store.put_measurements({supported(gpu, kernel(4), "FFT", 1.0, 10, 1000)});  // older: ignored
  EXPECT_EQ(store.find_measurement(gpu, kernel(4), "cudnn", "FFT")->measurement->time_ms, 2.0);
  store.put_measurements({unsupported(gpu, kernel(4), "FFT", 3000)});
  EXPECT_FALSE(store.find_measurement(gpu, kernel(4), "cudnn", "FFT")->measurement);
  store.put_measurements({supported(gpu, kernel(4), "FFT", 4.0, 10, 3000)});  // equal: the new one
  EXPECT_EQ(store.find_measurement(gpu, kernel(4), "cudnn", "FFT")->measurement->time_ms, 4.0);
}

TEST(SqliteStore, InvalidRecordsAreNotSaved) {
  TempFolder folder;
  SqliteStore store(folder.file("ucudnn.db"));
  const auto gpu = gpu_fingerprint();
  store.put_measurements({supported(gpu, kernel(4), "NAN", std::nan(""), 10),
                          supported(gpu, kernel(4), "NEG", -1.0, 10),
                          supported(gpu, kernel(4), "OK", 1.0, 10)});
  EXPECT_FALSE(store.find_measurement(gpu, kernel(4), "cudnn", "NAN"));
  EXPECT_FALSE(store.find_measurement(gpu, kernel(4), "cudnn", "NEG"));
  EXPECT_TRUE(store.find_measurement(gpu, kernel(4), "cudnn", "OK"));
  EXPECT_EQ(store.failed_writes(), 0u);
}

TEST(SqliteStore, IsNeverWal) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  {
    auto raw = raw_connection(path);
    raw.execute("PRAGMA journal_mode=WAL");
  }
  SqliteStore store(path);
  ASSERT_EQ(store.state(), StoreState::kReadWrite);
  store.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 1.0, 10)});
  auto raw = raw_connection(path);
  EXPECT_EQ(raw.query_text("PRAGMA journal_mode"), "delete");
  EXPECT_EQ(raw.query_integer("PRAGMA application_id"), db::kApplicationId);
  EXPECT_EQ(raw.query_integer("PRAGMA user_version"), db::schema_version());
}

TEST(SqliteStore, ManyThreadsShareOneStore) {
  TempFolder folder;
  SqliteStore store(folder.file("ucudnn.db"));
  const auto gpu = gpu_fingerprint();
  constexpr int kThreads = 4, kWrites = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        store.put_measurements({supported(gpu, kernel(1 + i, t), "FFT", i + 0.5, t)});
        store.find_measurement(gpu, kernel(1 + i, (t + 1) % kThreads), "cudnn", "FFT");
        store.put_plan(plan_key(gpu, 1 + i, t), sample_plan(2 + i));
      }
    });
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kWrites; ++i) {
      auto found = store.find_measurement(gpu, kernel(1 + i, t), "cudnn", "FFT");
      ASSERT_TRUE(found);
      EXPECT_EQ(found->measurement->time_ms, i + 0.5);
      EXPECT_EQ(found->measurement->workspace_bytes, static_cast<std::uint64_t>(t));
      EXPECT_EQ(store.find_plan(plan_key(gpu, 1 + i, t)), sample_plan(2 + i));
    }
  EXPECT_EQ(store.failed_writes(), 0u);
}

// The rows of `table` in the file at `path`, as another connection reads them.
std::int64_t rows_of(const std::string& path, const char* table) {
  return raw_connection(path).query_integer((std::string("SELECT count(*) FROM ") + table).c_str());
}

// A kernel's planning holds the saves of its measurements and plan: found at once, written in
// one transaction when the last hold ends (each transaction a synchronous commit).
TEST(SqliteStore, HeldSavesReachTheFileInOneTransaction) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  const auto gpu = gpu_fingerprint();
  SqliteStore store(path);
  store.put_measurements({supported(gpu, kernel(1), "A", 1.0, 10)});
  const std::uint32_t before = sqlite_change_counter(path);
  ASSERT_GT(before, 0u);
  auto rows_in_file = [&](const char* table) { return rows_of(path, table); };
  {
    const HeldSaves held(store);
    for (int b = 2; b <= 9; ++b) store.put_measurements({supported(gpu, kernel(b), "A", b, 10)});
    store.put_plan(plan_key(gpu), sample_plan());
    {
      const HeldSaves nested(store);
      store.put_measurements({supported(gpu, kernel(10), "A", 10.0, 10)});
    }
    EXPECT_TRUE(store.find_measurement(gpu, kernel(9), "cudnn", "A")) << "found at once";
    EXPECT_EQ(store.find_plan(plan_key(gpu)), sample_plan());
    EXPECT_EQ(sqlite_change_counter(path), before) << "nothing written while a hold lasts";
    EXPECT_EQ(rows_in_file("measurements"), 1);
    EXPECT_EQ(rows_in_file("plans"), 0);
  }
  EXPECT_EQ(sqlite_change_counter(path), before + 1) << "one transaction";
  EXPECT_EQ(rows_in_file("measurements"), 10);
  EXPECT_EQ(rows_in_file("plans"), 1);
  store.put_measurements({supported(gpu, kernel(11), "A", 11.0, 10)});
  EXPECT_EQ(sqlite_change_counter(path), before + 2) << "without a hold, each put is written";
  EXPECT_EQ(store.failed_writes(), 0u);
}

// Holds are a thread's: while one thread plans a kernel (holding), another thread's puts (a
// framework's autograd thread planning its own kernels, which holds nothing here) are written
// as they come, and the holding thread's rows wait for its own last release, not for a moment
// when no thread holds.
TEST(SqliteStore, AThreadsHoldDelaysOnlyItsOwnSaves) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  const auto gpu = gpu_fingerprint();
  SqliteStore store(path);
  store.put_measurements({supported(gpu, kernel(1), "A", 1.0, 10)});
  auto rows_in_file = [&] { return rows_of(path, "measurements"); };
  {
    const HeldSaves held(store);
    store.put_measurements({supported(gpu, kernel(2), "A", 2.0, 10)});
    std::thread other([&] { store.put_measurements({supported(gpu, kernel(3), "A", 3.0, 10)}); });
    other.join();
    // The other thread's write carried everything queued, the held row with it.
    EXPECT_EQ(rows_in_file(), 3) << "another thread's put is written while this one holds";
    store.put_measurements({supported(gpu, kernel(4), "A", 4.0, 10)});
    EXPECT_EQ(rows_in_file(), 3) << "this thread's put waits for its release";
    // A thread that holds and releases on its own, meanwhile, writes at its release.
    std::thread planning([&] {
      const HeldSaves its_own(store);
      store.put_measurements({supported(gpu, kernel(5), "A", 5.0, 10)});
    });
    planning.join();
    EXPECT_EQ(rows_in_file(), 5) << "the other thread's last release writes, this hold or not";
    store.put_measurements({supported(gpu, kernel(6), "A", 6.0, 10)});
    EXPECT_EQ(rows_in_file(), 5);
  }
  EXPECT_EQ(rows_in_file(), 6) << "written at this thread's last release";
  EXPECT_EQ(store.failed_writes(), 0u);
}

// The planner's path: the second run of a program measures nothing.
TEST(SqliteStore, ASecondRunDoesNoBenchmarking) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  TableBenchmarker device({"A", "B"});
  for (std::int64_t b = 1; b <= 8; ++b) {
    device.set("A", b, 1.0 * b, 100 * b);
    device.set("B", b, 0.5 * b, 1000 * b);
  }
  for (int run = 0; run < 2; ++run) {
    SqliteStore store(path);
    StoredBenchmarker stored(device, store);
    for (std::int64_t b = 1; b <= 8; ++b)
      for (const char* algorithm : {"A", "B", "C"}) stored.benchmark(kernel(8), algorithm, b);
    EXPECT_EQ(stored.measurements_taken(), run == 0 ? 24u : 0u) << "run " << run;
  }
}

}  // namespace
}  // namespace ucudnn
