// What a cached kernel costs: the store reads a device's rows once, at its first lookup, and
// answers every later lookup from memory; opening a healthy file reads a few pages, not the
// whole file (PRAGMA quick_check runs only when the file gives a reason).
#include <gtest/gtest.h>

#include "db/maintenance/commands.h"
#include "db/schema.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"
#include "fault_vfs.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

void fill(const std::string& path, int rows) {
  SqliteStore store(path);
  std::vector<MeasurementRecord> records;
  for (int b = 1; b <= rows; ++b) {
    records.push_back(supported(gpu_fingerprint(), kernel(b, b % 3), "FFT", b * 0.1, b));
    records.push_back(supported(cpu_fingerprint(), kernel(b, b % 3), "FFT", b * 0.2, b));
  }
  store.put_measurements(records);
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
}

TEST(StoreCache, AfterTheFirstLookupACachedKernelCostsNoQuery) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path, 300);
  SqliteStore store(path);
  const auto opened = store.statements_run();
  ASSERT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(7, 1), "cudnn", "FFT"));
  const auto loaded = store.statements_run();
  EXPECT_GT(loaded, opened) << "the first lookup reads the device's rows";
  for (int b = 1; b <= 300; ++b) {
    auto found = store.find_measurement(gpu_fingerprint(), kernel(b, b % 3), "cudnn", "FFT");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->measurement->time_ms, b * 0.1);
    EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(b, b % 3), "cudnn", "GEMM"));
  }
  EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan());
  EXPECT_FALSE(store.find_plan(plan_key(gpu_fingerprint(), 16)));
  EXPECT_EQ(store.statements_run(), loaded) << "hits, misses and plans come from memory";

  // Another device is read once, at its own first lookup.
  EXPECT_TRUE(store.find_measurement(cpu_fingerprint(), kernel(5, 2), "cudnn", "FFT"));
  const auto both = store.statements_run();
  EXPECT_GT(both, loaded);
  EXPECT_TRUE(store.find_measurement(cpu_fingerprint(), kernel(6, 0), "cudnn", "FFT"));
  EXPECT_EQ(store.statements_run(), both);
}

TEST(StoreCache, WritesAreSeenAtOnceAndOutliveTheProcess) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  fill(path, 10);
  {
    SqliteStore store(path);
    store.put_measurements({supported(gpu_fingerprint(), kernel(99), "WINOGRAD", 4.0, 40)});
    const auto written = store.statements_run();
    EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(99), "cudnn", "WINOGRAD"));
    EXPECT_EQ(store.statements_run(), written);
  }
  SqliteStore again(path);
  EXPECT_TRUE(again.find_measurement(gpu_fingerprint(), kernel(99), "cudnn", "WINOGRAD"));
}

// PRAGMA quick_check reads every page. Opening a healthy file must not: counted below SQLite.
TEST(StoreCache, OpeningAHealthyFileReadsAFewPagesNotTheWholeFile) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  in_child_process([&] {
    arm_faults({});  // counts reads
    fill(path, 1500);
    const auto pages = static_cast<std::int64_t>(std::filesystem::file_size(path) / 4096);
    ASSERT_GT(pages, 100);
    reset_main_database_reads();
    {
      SqliteStore store(path);
      ASSERT_EQ(store.state(), StoreState::kReadWrite);
    }
    EXPECT_LT(main_database_reads(), 10) << "of " << pages << " pages";
    reset_main_database_reads();
    auto report = db::check_database(path);  // `ucudnn db check` does read them all
    ASSERT_TRUE(report && report->ok());
    EXPECT_GE(main_database_reads(), pages);
  });
}

// A file of schema version 1 holding one plan, stored under the limit 1000: its key.
PlanKey write_version_one_file(const std::string& path) {
  auto raw = raw_connection(path);
  db::migrate(raw, db::migrations().first(1));
  raw.execute(
      "INSERT INTO fingerprints (canonical, fields) VALUES ('kind=gpu', '[]');"
      "INSERT INTO plans (fingerprint_id, subject, policy, workspace_limit, mode, "
      "configurations, created_at) VALUES (1, 'k', 'powerOfTwo', 1000, 'WR', "
      "'[{\"micro\":[{\"backend\":\"cudnn\",\"algorithm\":\"FFT\",\"batch\":4,"
      "\"time_ms\":1.0,\"workspace_bytes\":10}]}]', 1700000000)");
  return PlanKey{"kind=gpu", "k", "powerOfTwo", 1000, "WR"};
}

// The version 1 plan answers the exact limit it was stored under, as it did then.
void expect_version_one_plan(SqliteStore& store, const PlanKey& key) {
  ASSERT_TRUE(store.find_plan(key));
  EXPECT_EQ(store.find_plan(key)->front().micro.front().algorithm, "FFT");
  for (std::uint64_t other : {999u, 1001u, 1u << 30}) {
    PlanKey elsewhere = key;
    elsewhere.workspace_limit = other;
    EXPECT_FALSE(store.find_plan(elsewhere)) << other;
  }
}

// A file of schema version 1 is migrated once (with a quick_check first: a migration is a
// reason); its plans answer the exact limit they were stored under, as before.
TEST(StoreCache, AVersionOneFileIsMigratedAndItsPlansKeepTheirMeaning) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  const PlanKey key = write_version_one_file(path);
  Warnings warnings;
  SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
  ASSERT_EQ(store.state(), StoreState::kReadWrite) << warnings.all();
  EXPECT_EQ(raw_connection(path).query_integer("PRAGMA user_version"), db::schema_version());
  expect_version_one_plan(store, key);
  EXPECT_EQ(warnings.count(), 0u) << warnings.all();
}

// Read-only (`ucudnn plan`, a system database on a read-only file system), a file of version 1
// is read as it is, never migrated: it was refused as one that needs a migration, and the store
// ran without its rows.
TEST(StoreCache, AVersionOneFileOpenedReadOnlyIsReadWithoutAMigration) {
  for (const auto access : {StoreAccess::kReadOnly, StoreAccess::kShared}) {
    TempFolder folder;
    const auto path = folder.file("ucudnn.db");
    const PlanKey key = write_version_one_file(path);
    Warnings warnings;
    SqliteStore store(path, store_options(access, warnings.sink()));
    expect_version_one_plan(store, key);
    EXPECT_EQ(store.state(), StoreState::kReadOnly) << warnings.all();
    EXPECT_EQ(warnings.count(), 0u) << warnings.all();
    EXPECT_EQ(raw_connection(path).query_integer("PRAGMA user_version"), 1);
  }
}

// One plan row per step of the time-vs-workspace curve, however many limits are asked with.
TEST(StoreCache, APlanAnswersEveryLimitOfItsRange) {
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  const auto key = plan_key(gpu_fingerprint(), 32, 5000);
  {
    SqliteStore store(path);
    store.put_plan(key, sample_plan(), LimitRange{3000, 9000});
  }
  SqliteStore store(path);
  for (std::uint64_t limit : {3000u, 5000u, 8999u}) {
    PlanKey asked = key;
    asked.workspace_limit = limit;
    EXPECT_EQ(store.find_plan(asked), sample_plan()) << limit;
  }
  for (std::uint64_t limit : {0u, 2999u, 9000u}) {
    PlanKey asked = key;
    asked.workspace_limit = limit;
    EXPECT_FALSE(store.find_plan(asked)) << limit;
  }
  EXPECT_EQ(raw_connection(path).query_integer("SELECT count(*) FROM plans"), 1);
}

}  // namespace
}  // namespace ucudnn
