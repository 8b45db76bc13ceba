// The `ucudnn` tool end to end, as a user runs it: real SQLite files in a temporary folder,
// the CPU backend, the cuDNN test doubles (exact, deterministic times: bit-for-bit
// comparisons). Under mpirun: cluster_test.cc; the cudnn backend: cudnn_end_to_end_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "cli_test_fixture.h"
#include "support/printed_text.h"

namespace ucudnn::testing {
namespace {

TEST_F(CliTest, SecondBenchMeasuresNothingNew) {
  const auto args =
      concat({"bench", "--database", path("a.db"), "--total-workspace", "1MiB", "--no-check-plans"},
             bench_args());
  const auto first = run(args);
  ASSERT_EQ(first.status, 0) << describe(first);
  const auto [measured, reused] = counts(first);
  EXPECT_GT(measured, 0) << first.out;
  EXPECT_EQ(reused, 0);
  EXPECT_NE(first.out.find("WD total: planned"), std::string::npos) << first.out;
  // Not a terminal: plain progress lines, no bar.
  EXPECT_NE(first.err.find("[1/"), std::string::npos) << first.err;
  EXPECT_EQ(first.err.find('\r'), std::string::npos);

  const auto second = run(args);
  ASSERT_EQ(second.status, 0) << describe(second);
  EXPECT_EQ(counts(second), std::make_pair(0L, measured)) << second.out;
  EXPECT_EQ(plan_part(second.out), plan_part(first.out));

  // WR plans under the shim's keys (one per distinct kernel: conv3 repeats conv2) and the WD
  // plan of the network.
  const auto [measurements, plans] = rows(path("a.db"));
  EXPECT_EQ(measurements.size(), static_cast<std::size_t>(measured));
  std::size_t wr = 0, wd = 0;
  for (const auto& plan : plans) {
    if (plan["mode"] == "WR") {
      ++wr;
      // Stored with the range of limits it answers, which holds the one asked for.
      const auto from = plan["workspace_limit"].get<std::uint64_t>();
      const auto below = plan["valid_below"].get<std::uint64_t>();
      EXPECT_LE(from, 256u << 10);
      EXPECT_TRUE(below > (256u << 10) || below == UINT64_MAX) << below;
      EXPECT_EQ(plan["subject"].get<std::string>().rfind("ucudnn-kernel/1 op=", 0), 0u);
    } else {
      ++wd;
      EXPECT_EQ(plan["subject"].get<std::string>().rfind("network:", 0), 0u);
      EXPECT_EQ(plan["configurations"].size(), 9u);
    }
  }
  EXPECT_EQ(wr, 9u);
  EXPECT_EQ(wd, 1u);
}

// The plan check runs every plan beside its baseline on the same inputs: each row has both
// times and the outputs' difference against the stated tolerance.
TEST_F(CliTest, PlanCheckComparesOutputsAndPredictions) {
  const auto r = run(concat({"bench", "--database", path("a.db")}, bench_args()));
  ASSERT_EQ(r.status, 0) << describe(r);
  const auto at = r.out.find("\nplan check: ");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::istringstream lines(r.out.substr(at + 1));
  std::string line;
  std::getline(lines, line);  // title
  std::getline(lines, line);  // header
  std::set<std::string> checked;
  while (std::getline(lines, line) && line.rfind("WR total", 0) != 0) {
    SCOPED_TRACE(line);
    char layer[32], operation[32], verdict[16];
    double planned, measured, ratio, base_planned, base_measured, base_ratio, difference, tolerance;
    ASSERT_EQ(std::sscanf(line.c_str(),
                          "%31s %31s | %lf %lf %lf | %lf %lf %lf | %lf (tolerance %lf) %15s", layer,
                          operation, &planned, &measured, &ratio, &base_planned, &base_measured,
                          &base_ratio, &difference, &tolerance, verdict),
              11);
    EXPECT_GT(planned, 0);
    EXPECT_GT(measured, 0);
    EXPECT_GT(ratio, 0);
    EXPECT_LE(difference, tolerance);
    EXPECT_GE(tolerance, 2e-5);
    EXPECT_STREQ(verdict, "ok");
    checked.insert(std::string(layer) + " " + operation);
  }
  EXPECT_EQ(checked.size(), 9u) << "every distinct kernel with a plan (conv3 repeats conv2)";
  EXPECT_NE(r.out.find("predicted vs measured: median |measured/planned - 1| = "),
            std::string::npos);
  EXPECT_NE(r.out.find("outputs: every plan agrees with its undivided baseline"),
            std::string::npos);
}

// Excluded algorithms are never measured, planned nor read back from the database.
TEST_F(CliTest, ExcludedAlgorithmsAreNeitherMeasuredNorPlanned) {
  const auto bench = run(concat({"bench", "--database", path("a.db"), "--no-check-plans",
                                 "--exclude-algorithms", "cpu:lowering_*, cpu:ONEDNN_AUTO"},
                                bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto [measurements, plans] = rows(path("a.db"));
  ASSERT_FALSE(measurements.empty());
  std::set<std::string> algorithms;
  for (const auto& row : measurements) algorithms.insert(row["algorithm"].get<std::string>());
  EXPECT_TRUE(algorithms.count("DIRECT"));
  for (const auto& name : algorithms) {
    EXPECT_NE(name.rfind("LOWERING_", 0), 0u) << name;
    EXPECT_NE(name, "ONEDNN_AUTO");
  }
  EXPECT_EQ(plan_part(bench.out).find("LOWERING"), std::string::npos) << bench.out;

  // From the environment, on `plan`: measurements in the database are not used either.
  const auto unfiltered =
      run(concat({"bench", "--database", path("b.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(unfiltered.status, 0) << describe(unfiltered);
  const auto plan_args = concat({"plan", "--database", path("b.db"), "--json"}, network_args());
  const auto planned =
      run(plan_args, {{"UCUDNN_EXCLUDE_ALGORITHMS", "cpu:LOWERING_BATCHED,cpu:ONEDNN_*"}});
  ASSERT_EQ(planned.status, 0) << describe(planned);
  EXPECT_EQ(planned.err.find("warning"), std::string::npos) << "both entries excluded some";
  const json document = json::parse(planned.out);
  std::set<std::string> used;
  for (const auto& kernel : document["kernels"]) {
    for (const auto& m : kernel["plan"]["micro"]) used.insert(m["algorithm"].get<std::string>());
    if (!kernel["undivided"].is_null()) used.insert(kernel["undivided"]["algorithm"]);
  }
  ASSERT_FALSE(used.empty());
  for (const auto& name : used) {
    EXPECT_NE(name, "LOWERING_BATCHED");
    EXPECT_NE(name.rfind("ONEDNN_", 0), 0u) << name;
  }

  const auto bad = run(
      concat({"plan", "--database", path("b.db"), "--exclude-algorithms", "FFT"}, network_args()));
  EXPECT_EQ(bad.status, 2) << describe(bad);
  EXPECT_NE(bad.err.find("--exclude-algorithms: 'FFT' is not backend:ALGORITHM"), std::string::npos)
      << bad.err;
}

// The totals line states each ratio as the plan's speedup (the other's time over the plan's), as
// --json has the times, with digits enough for a fast network.
TEST_F(CliTest, TheTotalsLineGivesEachRatioAsThePlansSpeedup) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto args = concat({"plan", "--database", path("a.db")}, network_args());
  const auto text = run(args);
  const auto planned = run(concat(args, {"--json"}));
  ASSERT_EQ(text.status, 0) << describe(text);
  ASSERT_EQ(planned.status, 0) << describe(planned);
  const json totals = json::parse(planned.out)["wr_total"];
  const auto at = text.out.find("\nWR total: ");
  ASSERT_NE(at, std::string::npos) << text.out;
  double plan_ms = 0, undivided_ms = 0, speedup = 0, unlimited_ms = 0, unlimited_ratio = 0;
  ASSERT_EQ(std::sscanf(text.out.c_str() + at,
                        "\nWR total: planned %lf ms vs best undivided %lf ms: %lfx; unlimited best "
                        "%lf ms: %lfx",
                        &plan_ms, &undivided_ms, &speedup, &unlimited_ms, &unlimited_ratio),
            5)
      << text.out.substr(at);
  // Four significant digits: a fast network's totals are not "0.0 ms".
  EXPECT_NEAR(plan_ms, totals["plan_ms"].get<double>(), 5e-4 * plan_ms);
  EXPECT_NEAR(undivided_ms, totals["undivided_ms"].get<double>(), 5e-4 * undivided_ms);
  EXPECT_NEAR(unlimited_ms, totals["unlimited_ms"].get<double>(), 5e-4 * unlimited_ms);
  EXPECT_NEAR(speedup, undivided_ms / plan_ms, 0.01);
  EXPECT_NEAR(unlimited_ratio, unlimited_ms / plan_ms, 0.01);
}

// Output that did not reach its destination (a full disk: /dev/full here) fails the command, so
// that `ucudnn plan --json > plan.json && ...` never goes on with half a plan; a device named as
// a file is written, never replaced or removed.
TEST_F(CliTest, OutputThatCannotBeWrittenFailsTheCommand) {
  if (!std::filesystem::is_character_file("/dev/full")) GTEST_SKIP() << "no /dev/full here";
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto plan = run_with_output_to(
      "/dev/full", concat({"plan", "--database", path("a.db"), "--json"}, network_args()));
  EXPECT_EQ(plan.status, 1) << describe(plan);
  EXPECT_NE(plan.err.find("ucudnn plan: standard output could not be written"), std::string::npos)
      << plan.err;
  const auto exported = run({"db", "export", "--database", path("a.db"), "/dev/full"});
  EXPECT_EQ(exported.status, 1) << describe(exported);
  EXPECT_NE(exported.err.find("writing '/dev/full' failed"), std::string::npos) << exported.err;
  EXPECT_EQ(exported.err.find("exported"), std::string::npos) << exported.err;
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/full"));
  const auto to_null = run({"db", "export", "--database", path("a.db"), "/dev/null"});
  EXPECT_EQ(to_null.status, 0) << describe(to_null);
  EXPECT_TRUE(std::filesystem::is_character_file("/dev/null"));
  // Said once, though both the command and the exit check find it.
  const auto page = run_with_output_to(
      "/dev/full", concat({"report", "--database", path("a.db"), "--out", "-"}, network_args()));
  EXPECT_EQ(page.status, 1) << describe(page);
  EXPECT_EQ(testing::count_of(page.err, "standard output could not be written"), 1) << page.err;
}

// An export without its time of export: two exports of one database a second apart differ there.
std::string without_export_time(const std::string& exported) {
  return std::regex_replace(exported, std::regex(R"("exported_at": [0-9]+)"), "");
}

// Where the named file is not one to replace: /dev/stdout appends to whatever standard output is
// redirected to (it replaced that file with the export), a dangling link gets its file made and
// stays a link, a file keeps its permissions, and the database cannot be exported over itself.
TEST_F(CliTest, AnExportGoesWhereTheNameLeadsWithoutReplacingWhatItShouldNot) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  const auto whole = run({"db", "export", "--database", path("a.db")});
  ASSERT_EQ(whole.status, 0) << describe(whole);

  std::ofstream(path("log.txt")) << "an earlier line\n";
  const auto appended =
      run_process({"/bin/sh", "-c", "exec \"$0\" db export --database \"$1\" /dev/stdout >> \"$2\"",
                   kTool, path("a.db"), path("log.txt")},
                  environment({}));
  EXPECT_EQ(appended.status, 0) << describe(appended);
  EXPECT_EQ(without_export_time(read_file(path("log.txt"))),
            "an earlier line\n" + without_export_time(whole.out));

  std::filesystem::create_symlink("not-yet.json", path("dangling.json"));
  const auto dangling = run({"db", "export", "--database", path("a.db"), path("dangling.json")});
  EXPECT_EQ(dangling.status, 0) << describe(dangling);
  EXPECT_TRUE(std::filesystem::is_symlink(path("dangling.json")));
  EXPECT_EQ(without_export_time(read_file(path("not-yet.json"))), without_export_time(whole.out));

  std::ofstream(path("private.json")) << "old";
  std::filesystem::permissions(path("private.json"), std::filesystem::perms::owner_read |
                                                         std::filesystem::perms::owner_write);
  const auto kept = run({"db", "export", "--database", path("a.db"), path("private.json")});
  EXPECT_EQ(kept.status, 0) << describe(kept);
  EXPECT_EQ(without_export_time(read_file(path("private.json"))), without_export_time(whole.out));
  EXPECT_EQ(std::filesystem::status(path("private.json")).permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  const auto before = read_file(path("a.db"));
  const auto itself = run({"db", "export", "--database", path("a.db"), path("a.db")});
  EXPECT_EQ(itself.status, 1) << describe(itself);
  EXPECT_NE(itself.err.find("is the database itself (nothing was written)"), std::string::npos)
      << itself.err;
  EXPECT_TRUE(read_file(path("a.db")) == before);
}

// A WD total too small for any division names the smallest total that works, and that total
// is then planned (it said only that some kernel "has no configuration").
TEST_F(CliTest, AnInfeasibleTotalNamesTheSmallestFeasibleOne) {
  const auto bench =
      run(concat({"bench", "--database", path("a.db"), "--no-check-plans"}, bench_args()));
  ASSERT_EQ(bench.status, 0) << describe(bench);
  // Without DIRECT every algorithm needs some workspace.
  const auto args =
      concat({"plan", "--database", path("a.db"), "--exclude-algorithms", "cpu:DIRECT", "--json"},
             network_args(4, "16MiB"));
  const auto small = run(concat(args, {"--total-workspace", "1KiB"}));
  EXPECT_EQ(small.status, 1) << describe(small);
  const std::string error = json::parse(small.out)["wd"]["error"].get<std::string>();
  unsigned long long smallest = 0;
  ASSERT_EQ(std::sscanf(error.c_str(),
                        "total workspace limit 1024 bytes is infeasible: the smallest feasible "
                        "total is %llu bytes",
                        &smallest),
            1)
      << error;
  const auto enough = run(concat(args, {"--total-workspace", std::to_string(smallest)}));
  ASSERT_EQ(enough.status, 0) << describe(enough);
  const json wd = json::parse(enough.out)["wd"];
  EXPECT_FALSE(wd.contains("error")) << wd.dump();
  EXPECT_LE(wd["workspace_bytes"].get<unsigned long long>(), smallest);
  const auto below = run(concat(args, {"--total-workspace", std::to_string(smallest - 256)}));
  EXPECT_EQ(below.status, 1) << describe(below);
}

// Kernels of a data type the backend does not compute (half on the CPU backend) are named as
// such, not as "nothing fits 64 MiB" (at any limit); a network of nothing else fails before
// measuring, as an exclusion of everything does.
TEST_F(CliTest, KernelsTheBackendCannotRunAreNamedNotBlamedOnTheLimit) {
  const std::string layer = R"({"name": "c1", "input": [3, 16, 16], "output_channels": 8,
                                "filter": 3, "padding": 1})";
  std::ofstream(path("half.json")) << R"({"data_type": "half", "layers": [)" << layer << "]}";
  std::ofstream(path("mixed.json"))
      << R"({"layers": [)" << layer
      << R"(, {"name": "c2", "input": [8, 16, 16], "output_channels": 8, "filter": 3,
               "padding": 1, "data_type": "half"}]})";
  const std::vector<std::string> common = {"--batch", "2", "--repeats", "1", "--no-check-plans"};
  const auto half =
      run(concat({"bench", "--network", path("half.json"), "--database", path("h.db")}, common));
  EXPECT_EQ(half.status, 1) << describe(half);
  EXPECT_NE(half.err.find("ucudnn bench: the cpu backend has no algorithm for 3 of the 3 kernels, "
                          "e.g. c1 Forward (data type HALF): nothing can plan them on it"),
            std::string::npos)
      << half.err;
  EXPECT_EQ(half.out.find("measured"), std::string::npos) << half.out;

  const auto mixed =
      run(concat({"bench", "--network", path("mixed.json"), "--database", path("m.db")}, common));
  EXPECT_EQ(mixed.status, 1) << describe(mixed);
  EXPECT_NE(mixed.err.find("ucudnn bench: warning: the cpu backend has no algorithm for 3 of the "
                           "6 kernels, e.g. c2 Forward (data type HALF): they get no plan"),
            std::string::npos)
      << mixed.err;
  EXPECT_NE(mixed.out.find("c2    Forward        no algorithm runs it"), std::string::npos)
      << mixed.out;
  EXPECT_EQ(mixed.out.find("nothing fits"), std::string::npos) << mixed.out;
  EXPECT_NE(mixed.out.find("c1    Forward        cpu:"), std::string::npos) << mixed.out;
  const auto explained = run({"plan", "--network", path("mixed.json"), "--batch", "2", "--database",
                              path("m.db"), "--explain"});
  EXPECT_NE(explained.out.find("c2 Forward\n  undivided within 64 MiB: none\n  no plan: the cpu "
                               "backend has no algorithm for it\nc2 BackwardData"),
            std::string::npos)
      << explained.out;
}

// An entry that excludes nothing (a mistyped name, a backend this build lacks) is named; an
// exclusion that leaves some kernel no algorithm fails before anything is measured, where
// planning would only have said, after the measuring, that nothing fits.
TEST_F(CliTest, AnExclusionOfNothingIsNamedAndOneOfEverythingFailsBeforeMeasuring) {
  const auto typo = run(concat({"bench", "--database", path("a.db"), "--no-check-plans",
                                "--exclude-algorithms", "cpu:LOWERNG_*,gpu:FFT,cpu:ONEDNN_AUTO"},
                               bench_args()));
  ASSERT_EQ(typo.status, 0) << describe(typo);
  EXPECT_NE(typo.err.find("ucudnn bench: warning: --exclude-algorithms entry 'cpu:LOWERNG_*' "
                          "matched none of the cpu algorithms listed for these kernels"),
            std::string::npos)
      << typo.err;
  EXPECT_NE(typo.err.find("ucudnn bench: warning: --exclude-algorithms entry 'gpu:FFT' names no "
                          "backend of this build (cpu"),
            std::string::npos)
      << typo.err;
  EXPECT_EQ(testing::count_of(typo.err, "warning"), 2)
      << typo.err;  // cpu:ONEDNN_AUTO excluded some

  const auto all = run(
      concat({"bench", "--database", path("b.db"), "--exclude-algorithms", "cpu:*"}, bench_args()));
  EXPECT_EQ(all.status, 1) << describe(all);
  EXPECT_NE(all.err.find("ucudnn bench: --exclude-algorithms 'cpu:*' excludes every cpu "
                         "algorithm of 12 of the 12 kernels, e.g. conv1 Forward: nothing is left "
                         "to plan them with"),
            std::string::npos)
      << all.err;
  EXPECT_EQ(all.out.find("measured"), std::string::npos) << all.out;
  EXPECT_TRUE(rows(path("b.db")).first.empty());
}

// 3-d layers are planned like 2-d ones, by the N-d solvers, and their plans compute what the
// undivided baseline computes. oneDNN's solvers are excluded: they apply to 3-d problems too and,
// timed against ours (slower under the sanitizers), would decide by noise which solver plans.
TEST_F(CliTest, ThreeDimensionalNetworkOnTheCpu) {
  const std::string tiny3d = std::string(UCUDNN_SOURCE_DIR) + "/tests/cli/networks/tiny3d.json";
  const auto r = run({"bench", "--database", path("a.db"), "--network", tiny3d, "--batch", "4",
                      "--policy", "powerOfTwo", "--workspace-limit", "256KiB", "--repeats", "1",
                      "--exclude-algorithms", "cpu:ONEDNN_*"});
  ASSERT_EQ(r.status, 0) << describe(r);
  EXPECT_NE(r.out.find("conv1 Forward        cpu:"), std::string::npos) << r.out;
  EXPECT_NE(plan_part(r.out).find("_ND"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("outputs: every plan agrees with its undivided baseline"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace ucudnn::testing
