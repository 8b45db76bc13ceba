// The SQLite store answers exactly as the in-memory reference does, on random sequences of
// writes, lookups and reopenings over a small key space (so that keys collide often).
#include <gtest/gtest.h>

#include <limits>

#include "core/memory_store.h"
#include "core/micro_table.h"
#include "db/sqlite_store.h"
#include "db_test_support.h"
#include "support/random_seed.h"

namespace ucudnn {
namespace {

using namespace ucudnn::testing;

class RandomKeys {
 public:
  explicit RandomKeys(SeededRandom& random) : random_(random) {}

  std::string fingerprint() { return random_.chance(0.5) ? gpu_fingerprint() : cpu_fingerprint(); }
  KernelKey micro_kernel() {
    const Operation operations[] = {Operation::kForward, Operation::kBackwardData,
                                    Operation::kBackwardFilter};
    return kernel(random_.uniform(1, 4), static_cast<int>(random_.uniform(0, 1)),
                  operations[random_.uniform(0, 2)]);
  }
  std::string backend() { return random_.chance(0.5) ? "cudnn" : "cpu"; }
  std::string algorithm() {
    const char* names[] = {"FFT", "FFT_TILING", "WINOGRAD", "IMPLICIT_GEMM"};
    return names[random_.uniform(0, 3)];
  }
  double time() { return std::uniform_real_distribution<double>(0, 1000)(random_.engine()); }
  std::uint64_t workspace() {
    // Up to the largest workspace SQLite holds, with small values more likely.
    return random_.chance(0.2)
               ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
               : static_cast<std::uint64_t>(
                     random_.uniform(0, std::int64_t{1} << random_.uniform(0, 62)));
  }
  MeasurementRecord record() {
    MeasurementRecord r{fingerprint(), micro_kernel(), backend(), algorithm(), std::nullopt, 0};
    if (random_.chance(0.8)) {
      const double t = time();
      r.measurement =
          Measurement{t, workspace(), t * 0.5, t * 2, static_cast<int>(random_.uniform(0, 100))};
    }
    return r;
  }
  PlanKey plan_key() {
    return PlanKey{fingerprint(), micro_kernel().to_string(),
                   random_.chance(0.5) ? "all" : "powerOfTwo", limit(),
                   random_.chance(0.5) ? "WR" : "WD"};
  }
  std::uint64_t limit() { return kLimits[random_.uniform(0, std::size(kLimits) - 1)]; }
  // A range holding `limit`: exactly it, or from a smaller limit to a larger one (or none),
  // so that ranges of one subject overlap and replace each other often.
  LimitRange range(std::uint64_t limit) {
    if (random_.chance(0.3)) return LimitRange::exactly(limit);
    std::vector<std::uint64_t> lower, upper;
    for (auto l : kLimits) (l <= limit ? lower : upper).push_back(l);
    upper.push_back(LimitRange::kUnbounded);
    return {lower[random_.uniform(0, static_cast<std::int64_t>(lower.size()) - 1)],
            upper[random_.uniform(0, static_cast<std::int64_t>(upper.size()) - 1)]};
  }
  std::vector<Configuration> plan() {
    std::vector<Configuration> plan(static_cast<std::size_t>(random_.uniform(0, 3)));
    for (auto& configuration : plan)
      for (auto n = random_.uniform(0, 4); n > 0; --n)
        configuration.micro.push_back(
            MicroConfiguration{backend(), algorithm(),
                               random_.uniform(1, std::numeric_limits<std::int64_t>::max()), time(),
                               static_cast<std::uint64_t>(
                                   random_.uniform(0, std::numeric_limits<std::int64_t>::max())) *
                                   2});
    return plan;
  }

 private:
  static constexpr std::uint64_t kLimits[] = {
      0, 1000, 4096, 64 << 20, std::uint64_t{1} << 63, kNoWorkspaceLimit};
  SeededRandom& random_;
};

TEST(StoreEquivalence, SqliteStoreAnswersAsMemoryStore) {
  SeededRandom random;
  RandomKeys keys(random);
  TempFolder folder;
  const auto path = folder.file("ucudnn.db");
  MemoryStore reference;
  auto store = std::make_unique<SqliteStore>(path);

  for (int step = 0; step < 600; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const auto what = random.uniform(0, 99);
    if (what < 30) {
      std::vector<MeasurementRecord> records;
      for (auto n = random.uniform(1, 4); n > 0; --n) records.push_back(keys.record());
      reference.put_measurements(records);
      store->put_measurements(records);
    } else if (what < 60) {
      const auto fingerprint = keys.fingerprint();
      const auto micro = keys.micro_kernel();
      const auto backend = keys.backend(), algorithm = keys.algorithm();
      auto expected = reference.find_measurement(fingerprint, micro, backend, algorithm);
      auto found = store->find_measurement(fingerprint, micro, backend, algorithm);
      ASSERT_EQ(expected.has_value(), found.has_value());
      if (!found) continue;
      EXPECT_EQ(found->fingerprint, expected->fingerprint);
      EXPECT_EQ(found->kernel, expected->kernel);
      EXPECT_EQ(found->backend, expected->backend);
      EXPECT_EQ(found->algorithm, expected->algorithm);
      expect_same(found->measurement, expected->measurement);
      EXPECT_GT(found->measured_at, 0) << "the store fills in the time";
    } else if (what < 75) {
      const auto key = keys.plan_key();
      const auto plan = keys.plan();
      const auto valid = keys.range(key.workspace_limit);
      reference.put_plan(key, plan, valid);
      store->put_plan(key, plan, valid);
    } else if (what < 97) {
      const auto key = keys.plan_key();
      EXPECT_EQ(store->find_plan(key), reference.find_plan(key)) << key.workspace_limit;
    } else {
      store = std::make_unique<SqliteStore>(path);  // what is stored outlives the process
    }
  }
  EXPECT_EQ(store->failed_writes(), 0u);
}

}  // namespace
}  // namespace ucudnn
