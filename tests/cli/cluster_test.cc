// `ucudnn bench` under mpirun, as a cluster runs it: ranks together measure what one process
// measures (the CPU backend; the cuDNN test doubles bit for bit), a rank bound to one core is
// refused, ranks that share a GPU are named, and a job that loses a rank keeps what was measured.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli_test_fixture.h"
#include "support/printed_text.h"

namespace ucudnn::testing {
namespace {

// What must agree even where times differ (the CPU): which kernels, algorithms and
// micro-batches were measured, whether they ran, with what workspace.
using MeasurementKey = std::tuple<std::string, std::string, std::string, std::string, std::int64_t,
                                  std::string, std::uint64_t>;
std::set<MeasurementKey> measurement_keys(const std::vector<json>& rows) {
  std::set<MeasurementKey> keys;
  for (const auto& row : rows)
    keys.insert({row["fingerprint"], row["kernel_key"], row["backend"], row["algorithm"],
                 row["micro_batch"], row["status"],
                 row.value("workspace_bytes", std::uint64_t{0})});
  return keys;
}
// The keys of `a` that `b` lacks, one per line (a short failure message).
std::string only_in(const std::set<MeasurementKey>& a, const std::set<MeasurementKey>& b) {
  std::string text;
  for (const auto& key : a)
    if (!b.count(key))
      text += std::get<1>(key).substr(0, 40) + "... " + std::get<3>(key) + " micro-batch " +
              std::to_string(std::get<4>(key)) + " " + std::get<5>(key) + " " +
              std::to_string(std::get<6>(key)) + "\n";
  return text;
}
// What a plan answers, not the limits it covers: the range a plan is valid over starts at the
// workspace its chosen configuration needs, which timing noise may change from run to run.
std::set<std::string> plan_keys(const std::vector<json>& rows) {
  std::set<std::string> keys;
  for (const auto& row : rows)
    keys.insert(row["fingerprint"].get<std::string>() + "|" + row["subject"].get<std::string>() +
                "|" + row["policy"].get<std::string>() + "|" + row["mode"].get<std::string>());
  return keys;
}

TEST_F(CliTest, MpiRanksTogetherMeasureWhatOneProcessMeasures) {
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: the cluster test needs Open MPI";
  const auto cluster = run_mpi(concat(
      {"bench", "--database", path("cluster.db"), "--no-check-plans", "--total-workspace", "1MiB"},
      bench_args()));
  ASSERT_EQ(cluster.status, 0) << describe(cluster);
  EXPECT_NE(cluster.out.find("cluster: 2 ranks"), std::string::npos) << cluster.out;
  const auto single = run(concat(
      {"bench", "--database", path("single.db"), "--no-check-plans", "--total-workspace", "1MiB"},
      bench_args()));
  ASSERT_EQ(single.status, 0) << describe(single);
  EXPECT_EQ(counts(cluster), counts(single));
  const auto a = rows(path("cluster.db"));
  const auto b = rows(path("single.db"));
  EXPECT_FALSE(a.first.empty());
  EXPECT_EQ(only_in(measurement_keys(a.first), measurement_keys(b.first)), "");
  EXPECT_EQ(only_in(measurement_keys(b.first), measurement_keys(a.first)), "");
  EXPECT_EQ(plan_keys(a.second), plan_keys(b.second));
  // Only rank 0 wrote: the default database of the other rank was never created.
  EXPECT_FALSE(std::filesystem::exists(path("default.db")));
}

// A rank bound to one core measures the CPU backend's threads on it, and stores that as the
// machine's: mpirun binds each rank so by default, a single one too (-np 1 ran, unwarned). A
// plain process bound on purpose (taskset) runs, told what it costs.
TEST_F(CliTest, ABoundProcessIsRefusedUnderMpiAndWarnedAlone) {
  const std::string taskset = "/usr/bin/taskset";
  if (::access(taskset.c_str(), X_OK) != 0) GTEST_SKIP() << "no " << taskset;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int first = 0;
  while (first < CPU_SETSIZE && !CPU_ISSET(first, &allowed)) ++first;
  const std::vector<std::string> args =
      concat({"bench", "--database", path("bound.db"), "--no-check-plans"}, bench_args());
  std::vector<std::string> argv = {taskset, "-c", std::to_string(first), kTool};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto alone = run_process(argv, environment({}));
  EXPECT_EQ(alone.status, 0) << describe(alone);
  int threads = 0;
  const auto at = alone.out.find("devices: CPU (");
  ASSERT_NE(at, std::string::npos) << describe(alone);
  ASSERT_EQ(std::sscanf(alone.out.c_str() + at, "devices: CPU (%d threads", &threads), 1);
  if (threads < 2) GTEST_SKIP() << "one core: nothing to bind away";
  EXPECT_NE(alone.err.find("warning: this process may run on 1 CPU only"), std::string::npos)
      << describe(alone);
  EXPECT_EQ(alone.err.find("mpirun"), std::string::npos) << describe(alone);
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: the cluster part needs Open MPI";
  const auto bound = run_mpi(args, {}, {"--bind-to", "hwthread", "-np", "1"});
  EXPECT_EQ(bound.status, 1) << describe(bound);
  EXPECT_NE(bound.err.find("this process may run on 1 CPU only"), std::string::npos)
      << describe(bound);
  EXPECT_NE(bound.err.find("--bind-to none"), std::string::npos) << describe(bound);
}

TEST_F(CliTest, CudnnClusterEqualsOneProcessBitForBit) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: the cluster test needs Open MPI";
  const auto args =
      concat({"bench", "--backend", "cudnn", "--no-check-plans", "--total-workspace", "4MiB"},
             bench_args(8));
  const auto cluster = run_mpi(concat(args, {"--database", path("cluster.db")}), fakecuda());
  ASSERT_EQ(cluster.status, 0) << describe(cluster);
  EXPECT_NE(cluster.out.find("rank 1: GPU 0 (ucudnn fakecuda test double)"), std::string::npos)
      << cluster.out;
  // Both ranks on the one GPU: their timings disturb each other, and the job says so (it said
  // so only of the CPU's cores). Ranks with a GPU each share nothing.
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(count_of(cluster.out, std::string("note: ranks 0 and 1 share GPU 0 (ucudnn fakecuda "
                                              "test double) on ") +
                                      host),
            1)
      << cluster.out;
  const auto apart = run_mpi(concat(args, {"--database", path("apart.db")}),
                             fakecuda({{"FAKECUDA_DEVICE_COUNT", "2"}}));
  ASSERT_EQ(apart.status, 0) << describe(apart);
  EXPECT_NE(apart.out.find("rank 1: GPU 1"), std::string::npos) << apart.out;
  EXPECT_EQ(count_of(apart.out, "note:"), 0) << apart.out;
  const auto single = run(concat(args, {"--database", path("single.db")}), fakecuda());
  ASSERT_EQ(single.status, 0) << describe(single);
  EXPECT_EQ(plan_part(cluster.out), plan_part(single.out));
  const auto a = rows(path("cluster.db"));
  const auto b = rows(path("single.db"));
  EXPECT_FALSE(a.first.empty());
  EXPECT_EQ(without_times(a.first), without_times(b.first));
  EXPECT_EQ(without_times(a.second), without_times(b.second));
}

// A rank lost midway (a device fault: the double kills rank 1 at a convolution call) ends the
// whole MPI job, as MPI does. What every rank measured before is in the database (before, rank 0
// stored the job's measurements only at the end, and nothing was kept), and the same command
// then measures only the rest, to the database an uninterrupted job makes.
TEST_F(CliTest, AClusterJobThatLosesARankKeepsWhatEveryRankMeasured) {
  if (!have_fakecuda()) GTEST_SKIP() << "built without the cuDNN test doubles";
  if (!have_mpirun()) GTEST_SKIP() << "mpirun not found: the cluster test needs Open MPI";
  const auto args =
      concat({"bench", "--backend", "cudnn", "--no-check-plans", "--total-workspace", "4MiB"},
             bench_args(8));
  auto lose_rank_1 = [&](const std::string& database, int at_call) {
    const auto run =
        run_mpi_second_rank_apart(concat(args, {"--database", path(database)}), fakecuda(),
                                  {{"FAKECUDA_CRASH_AT", std::to_string(at_call)}});
    EXPECT_NE(run.status, 0) << describe(run);
    EXPECT_NE(run.err.find("FAKECUDA_CRASH_AT=" + std::to_string(at_call)), std::string::npos)
        << describe(run);
    return rows(path(database)).first.size();
  };
  // At its first call rank 1 has measured nothing: rank 0's own share is what is kept.
  const std::size_t first = lose_rank_1("first.db", 1);
  // Later, rank 1's items measured before are kept too (its share is some 200 calls).
  const std::size_t later = lose_rank_1("later.db", 40);
  std::printf("measurements kept: %zu with rank 1 lost at its first call, %zu later\n", first,
              later);
  EXPECT_GT(first, 0u);
  EXPECT_GT(later, first);

  const auto resumed = run_mpi(concat(args, {"--database", path("later.db")}), fakecuda());
  ASSERT_EQ(resumed.status, 0) << describe(resumed);
  EXPECT_NE(resumed.out.find("reused " + std::to_string(later) + " in "), std::string::npos)
      << describe(resumed);
  const auto single = run(concat(args, {"--database", path("single.db")}), fakecuda());
  ASSERT_EQ(single.status, 0) << describe(single);
  EXPECT_LT(later, rows(path("single.db")).first.size()) << "rank 1 was lost before its end";
  EXPECT_EQ(without_times(rows(path("later.db")).first),
            without_times(rows(path("single.db")).first));
}

}  // namespace
}  // namespace ucudnn::testing
