// A database is a file anyone with access can edit (and a shared one is shared with people
// who make mistakes). Rows with values no ucudnn writes read as absent, never as a crash or
// a plan that writes out of bounds, and a good write replaces them.
#include <gtest/gtest.h>

#include "db/sqlite_store.h"
#include "db_test_support.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

class PoisonedRows : public ::testing::Test {
 protected:
  void SetUp() override {
    SqliteStore store(path);
    store.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 1.0, 10)});
    store.put_plan(plan_key(gpu_fingerprint()), sample_plan());
  }

  // Runs fixed SQL with one bound text value (?1) on the file, behind the store's back.
  void poison(const char* sql, const std::string& value = "") {
    auto raw = raw_connection(path);
    auto statement = raw.prepare(sql);
    auto cursor = statement.start();
    if (std::string(sql).find("?1") != std::string::npos) cursor.bind(1, value);
    cursor.run();
  }

  TempFolder folder;
  std::string path = folder.file("ucudnn.db");
};

TEST_F(PoisonedRows, GarbagePlansReadAsAbsent) {
  const std::string garbage[] = {
      "",
      "not json",
      "{\"micro\": []}",
      "[{\"micro\": [{\"backend\": \"cudnn\"}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": -3, "
      "\"time_ms\": 1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": 0, "
      "\"time_ms\": 1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": 1e30, "
      "\"time_ms\": 1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": "
      "99999999999999999999999, \"time_ms\": 1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": "
      "9223372036854775808, \"time_ms\": 1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": 4, "
      "\"time_ms\": 1, \"workspace_bytes\": -5}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": 4, "
      "\"time_ms\": 1, \"workspace_bytes\": 1e300}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": 4, "
      "\"time_ms\": -1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": 4, "
      "\"time_ms\": 1e999, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": 7, \"algorithm\": \"FFT\", \"batch\": 4, "
      "\"time_ms\": 1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": \"4\", "
      "\"time_ms\": 1, \"workspace_bytes\": 0}]}]",
      "[{\"micro\": [5]}]",
      "[[1, 2]]",
      "[{\"micro\": [{\"backend\": \"cudnn\", \"algorithm\": \"FFT\", \"batch\": 4, "
      "\"time_ms\": 1, \"workspace_bytes\": 0}]}] trailing",
      std::string(200000, '[') + std::string(200000, ']'),  // deep enough to overflow a stack
      "\xff\xfe\x00garbage",
  };
  for (const auto& value : garbage) {
    SCOPED_TRACE(value.substr(0, 80));
    poison("UPDATE plans SET configurations = ?1", value);
    Warnings warnings;
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    EXPECT_FALSE(store.find_plan(plan_key(gpu_fingerprint())));
    EXPECT_LE(warnings.count(), 1u) << warnings.all();
  }
  // A good plan for the key replaces the garbage.
  SqliteStore store(path);
  store.put_plan(plan_key(gpu_fingerprint()), sample_plan(8));
  EXPECT_EQ(store.find_plan(plan_key(gpu_fingerprint())), sample_plan(8));
}

TEST_F(PoisonedRows, GarbagePlanColumnsReadAsAbsent) {
  const char* statements[] = {
      "UPDATE plans SET created_at = 'yesterday'",
      "UPDATE plans SET configurations = x'00ff00'",
      "UPDATE plans SET created_at = -5",
  };
  for (const char* sql : statements) {
    SCOPED_TRACE(sql);
    SetUp();
    poison(sql);
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, nullptr));
    EXPECT_FALSE(store.find_plan(plan_key(gpu_fingerprint())));
  }
}

TEST_F(PoisonedRows, GarbageMeasurementsReadAsAbsentAndAreReplaced) {
  const char* statements[] = {
      "UPDATE measurements SET time_ms = -1",
      "UPDATE measurements SET time_ms = 'fast'",
      "UPDATE measurements SET time_ms = NULL",
      "UPDATE measurements SET min_ms = 1e999",
      "UPDATE measurements SET workspace_bytes = -5",
      "UPDATE measurements SET workspace_bytes = 1e30",
      "UPDATE measurements SET workspace_bytes = 'lots'",
      "UPDATE measurements SET repeats = 99999999999",
      "UPDATE measurements SET repeats = -1",
      "UPDATE measurements SET status = 'maybe'",
      "UPDATE measurements SET status = x'00'",
      "UPDATE measurements SET micro_batch = -4",
      "UPDATE measurements SET measured_at = 'now'",
      "UPDATE measurements SET measured_at = -1",
      // A time far in the future would make every later measurement look older.
      "UPDATE measurements SET measured_at = 9000000000000, time_ms = -1",
      "UPDATE measurements SET fingerprint_id = 99",
  };
  for (const char* sql : statements) {
    SCOPED_TRACE(sql);
    SetUp();
    poison(sql);
    Warnings warnings;
    SqliteStore store(path, store_options(StoreAccess::kReadWrite, warnings.sink()));
    EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT"));
    EXPECT_LE(warnings.count(), 1u) << warnings.all();
    store.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 2.0, 20)});
    auto found = store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT");
    ASSERT_TRUE(found) << "a good measurement replaces the garbage";
    EXPECT_EQ(found->measurement->time_ms, 2.0);
    // Start the next case from the original row.
    poison("DELETE FROM measurements");
  }
}

// Without its unique constraint the table cannot be written as ucudnn writes: the file is
// set aside like a damaged one.
TEST_F(PoisonedRows, ATableWithoutTypesOrConstraintsIsNotACrash) {
  poison("DROP TABLE measurements");
  poison(
      "CREATE TABLE measurements (id, fingerprint_id, kernel_key, kernel_hash, backend, algorithm,"
      " micro_batch, status, time_ms, min_ms, max_ms, repeats, workspace_bytes, measured_at)");
  poison(
      "INSERT INTO measurements VALUES (x'01', 1, ?1, 3.5, x'00', NULL, 'x', 7, 'a', 'b', 'c', "
      "'d', 'e', 'f')",
      kernel(4).to_string());
  SqliteStore store(path, store_options(StoreAccess::kReadWrite, nullptr));
  EXPECT_FALSE(store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT"));
  store.put_measurements({supported(gpu_fingerprint(), kernel(4), "FFT", 2.0, 20)});
  EXPECT_TRUE(store.find_measurement(gpu_fingerprint(), kernel(4), "cudnn", "FFT"));
}

}  // namespace
}  // namespace ucudnn
