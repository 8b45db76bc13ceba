// What `ucudnn plan` and `report` say when the database cannot give them what they need: the
// missing kernels, and a `bench` command only where that command would measure them (it measures
// this machine, and refuses a text file as its database), and no warning where nothing is amiss.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_fixture.h"

namespace ucudnn::testing {
namespace {

TEST_F(CliTest, PlanAdvisesOnlyABenchThatWouldMeasureWhatIsMissing) {
  const auto bench =
      run(concat({"bench", "--no-check-plans", "--database", path("a.db")}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const std::string advice = "run `ucudnn bench";

  // Another batch on this machine: the bench that measures it.
  const auto other_batch = run(concat({"plan", "--database", path("a.db")}, network_args(8)));
  EXPECT_EQ(other_batch.status, 1) << describe(other_batch);
  EXPECT_NE(other_batch.err.find(advice), std::string::npos) << other_batch.err;

  // A device the database has no results of: named, with the devices it has; a bench here would
  // measure this machine instead (it advised one).
  const auto bogus =
      run(concat({"plan", "--database", path("a.db"), "--fingerprint", "bogus"}, network_args()));
  EXPECT_EQ(bogus.status, 1) << describe(bogus);
  EXPECT_NE(bogus.err.find("the database has no cpu results of these kernels for --fingerprint "
                           "'bogus'; it has results for:\n  kind=cpu;"),
            std::string::npos)
      << bogus.err;
  EXPECT_EQ(bogus.err.find(advice), std::string::npos) << bogus.err;

  // A text file as the database: refused as bench refuses it, and left as it is (it advised the
  // bench that refuses it).
  std::filesystem::copy_file(kTiny, path("net.json"));
  const std::string before = read_file(path("net.json"));
  for (const char* command : {"plan", "report"}) {
    const auto text = run(concat({command, "--database", path("net.json")}, network_args()));
    EXPECT_EQ(text.status, 1) << describe(text);
    EXPECT_NE(text.err.find("--database: '" + path("net.json") +
                            "' is a text file, not a SQLite database"),
              std::string::npos)
        << text.err;
    EXPECT_EQ(text.err.find(advice), std::string::npos) << text.err;
  }
  EXPECT_EQ(read_file(path("net.json")), before);
}

// Beside a system database (a cluster's results, shared read-only), a user database not made yet
// is the usual case: plan reads the system's results without a warning (it warned that the user
// database "does not exist" at every run). A --database named and missing is still said.
TEST_F(CliTest, PlanFromASystemDatabaseDoesNotWarnOfAUserDatabaseNotYetMade) {
  const auto bench =
      run(concat({"bench", "--no-check-plans", "--database", path("system.db")}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto planned =
      run(concat({"plan"}, network_args()),
          {{"UCUDNN_SYSTEM_DATABASE", path("system.db")}, {"UCUDNN_DATABASE", path("not-yet.db")}});
  EXPECT_EQ(planned.status, 0) << describe(planned);
  EXPECT_EQ(planned.err.find("does not exist"), std::string::npos) << planned.err;
  EXPECT_FALSE(std::filesystem::exists(path("not-yet.db"))) << "plan creates nothing";
  const auto named = run(concat({"plan", "--database", path("missing.db")}, network_args()));
  EXPECT_NE(named.err.find("does not exist"), std::string::npos) << named.err;
}

// A job's settings are the planning options' defaults, as UCUDNN_EXCLUDE_ALGORITHMS always was:
// a user who exports a job's settings and runs the tool looks up, and is advised to measure,
// what that job will look up. They were ignored without a word (no division was stored for a job
// under UCUDNN_TOTAL_WORKSPACE_SIZE). An option given wins; a bad value is named by its setting.
TEST_F(CliTest, AJobsSettingsAreThePlanningDefaults) {
  const Environment job = {{"UCUDNN_WORKSPACE_LIMIT", "8MiB"},
                           {"UCUDNN_BATCH_SIZE_POLICY", "undivided"},
                           {"UCUDNN_TOTAL_WORKSPACE_SIZE", "32MiB"}};
  const std::vector<std::string> plan = {"plan", "--database", path("a.db"), "--network",
                                         kTiny,  "--batch",    "4"};
  const auto r = run(plan, job);
  EXPECT_EQ(r.status, 1) << describe(r);
  EXPECT_NE(r.err.find("--policy undivided --workspace-limit 8MiB --total-workspace 32MiB"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ucudnn plan: note: --workspace-limit 8MiB is UCUDNN_WORKSPACE_LIMIT's, as "
                       "a job's (an option given overrides it)"),
            std::string::npos)
      << r.err;
  const auto given =
      run(concat(plan, {"--workspace-limit", "16MiB", "--total-workspace", "0"}), job);
  EXPECT_NE(given.err.find("--policy undivided --workspace-limit 16MiB --total-workspace 0"),
            std::string::npos)
      << given.err;
  EXPECT_EQ(given.err.find("UCUDNN_WORKSPACE_LIMIT's"), std::string::npos) << given.err;
  // Read as the shim reads them: the alias where the name is blank, spaces and line ends around a
  // value (an environment file's) no part of it.
  const auto as_the_shim = run(plan, {{"UCUDNN_WORKSPACE_LIMIT", " "},
                                      {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", "1GiB"},
                                      {"UCUDNN_BATCH_SIZE_POLICY", "all\r\n"}});
  EXPECT_NE(as_the_shim.err.find("--policy all --workspace-limit 1GiB --database"),
            std::string::npos)
      << as_the_shim.err;
  EXPECT_NE(as_the_shim.err.find("--workspace-limit 1GiB is UCUDNN_DEFAULT_WORKSPACE_LIMIT's"),
            std::string::npos)
      << as_the_shim.err;
  const auto bad = run(plan, {{"UCUDNN_WORKSPACE_LIMIT", "lots"}});
  EXPECT_EQ(bad.status, 2) << describe(bad);
  EXPECT_NE(bad.err.find("ucudnn plan: UCUDNN_WORKSPACE_LIMIT (--workspace-limit's default): "),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace ucudnn::testing
