// UCUDNN_KNOB_VARIANTS on the example program (examples/conv_network) under the preload, on
// the cuDNN/CUDA test doubles whose heuristics offer each split-K engine with its most buffers
// only (FAKECUDA_HEURISTICS_FASTEST_SPLIT=1), as heuristics that choose knobs for speed alone:
// under a limit those buffers do not fit, the same engines with fewer buffers are candidates,
// plans run them, and the results are the program's own; and plans made offline with the tool
// (`ucudnn bench --knob-variants`) are what a job with the setting on runs, nothing measured.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "end_to_end_fixture.h"
#include "example_kernels.h"
#include "example_program.h"
#include "network_layers.h"
#include "support/subprocess.h"

namespace ucudnn {
namespace {

using testing::count_of;
using testing::expect_ran_on_doubles;
using testing::expect_same_results;
using testing::ProgramRun;

// The info log's plans that run a split-K engine with fewer buffers than its 4 ("k12=" is the
// double's split-K buffers knob, CUDNN_KNOB_TYPE_SPLIT_K_BUF).
int plans_with_fewer_buffers(const std::string& err) {
  std::istringstream lines(err);
  int plans = 0;
  for (std::string line; std::getline(lines, line);)
    plans += line.find(" plan within ") != std::string::npos &&
             (line.find("k12=1}") != std::string::npos || line.find("k12=2}") != std::string::npos);
  return plans;
}

TEST_F(EndToEnd, KnobVariantsFitWhereTheHeuristicsChoiceDoesNotAndRunFaster) {
  // Under 64 KiB the example's split-K engines fit with one or two buffers, not four.
  const std::string cap = std::to_string(64 * 1024);
  const ProgramRun alone = baseline({"--workspace-limit", cap});
  auto run_with = [&](const char* variants, const char* database) {
    return preloaded_like(
        alone, cap, database,
        {{"UCUDNN_KNOB_VARIANTS", variants}, {"FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1"}});
  };
  const ProgramRun without = run_with("off", "without.db");
  const ProgramRun with = run_with("on", "with.db");
  EXPECT_EQ(plans_with_fewer_buffers(without.process.err), 0) << without.process.err;
  EXPECT_GT(plans_with_fewer_buffers(with.process.err), 0) << with.process.err;
  ASSERT_FALSE(with.iteration_ms.empty());
  ASSERT_FALSE(without.iteration_ms.empty());
  // The doubles' modeled GPU time of an iteration: 0.106 ms without, 0.089 with (1.20x).
  EXPECT_LT(with.iteration_ms.back(), without.iteration_ms.back() / 1.1)
      << "with " << with.iteration_ms.back() << " ms, without " << without.iteration_ms.back();

  // Plans made with the variants are stored under a mode of their own: turned off, the setting
  // takes them out (the plans are those of a database that never had them); turned on again,
  // they come back from the database, nothing measured.
  const ProgramRun off_again = run_with("off", "with.db");
  expect_same_results(alone, off_again);
  EXPECT_EQ(plans_with_fewer_buffers(off_again.process.err), 0) << off_again.process.err;
  ASSERT_FALSE(off_again.iteration_ms.empty());
  EXPECT_EQ(off_again.iteration_ms.back(), without.iteration_ms.back());
  const ProgramRun on_again = run_with("on", "with.db");
  expect_same_results(alone, on_again);
  EXPECT_GT(plans_with_fewer_buffers(on_again.process.err), 0) << on_again.process.err;
  EXPECT_EQ(count_of(on_again.process.err, "benchmarked"), 0) << on_again.process.err;
  ASSERT_FALSE(on_again.iteration_ms.empty());
  EXPECT_EQ(on_again.iteration_ms.back(), with.iteration_ms.back());
}

// Plans made offline by `ucudnn bench --knob-variants` (same device, policy and limit) are what a
// job with UCUDNN_KNOB_VARIANTS=on runs from its first call: nothing measured, the variants
// planned, the program's own results.
TEST_F(EndToEnd, KnobVariantPlansMadeOfflineAreWhatTheJobRuns) {
  const std::string cap = std::to_string(64 * 1024), network = folder_.file("network.json"),
                    database = folder_.file("offline.db");
  std::ofstream(network) << example_network_file();
  const auto bench = testing::run_process(
      {UCUDNN_CLI, "bench", "--backend", "cudnn", "--knob-variants", "--repeats", "1",
       "--no-check-plans", "--policy", "powerOfTwo", "--batch", std::to_string(kBatch), "--network",
       network, "--database", database, "--workspace-limit", cap},
      {{"LD_LIBRARY_PATH", UCUDNN_FAKECUDA_DIR},
       {"LD_PRELOAD", std::nullopt},
       {"FAKECUDA_TRACE", std::nullopt},
       {"FAKECUDA_COMPUTE", "0"},
       {"FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1"}});
  ASSERT_EQ(bench.status, 0) << bench.out << bench.err;
  // The database's plans, through the tool: a job that planned anew (from the stored
  // measurements, measuring nothing) would add its own.
  auto stored_plans = [&] {
    const auto exported =
        testing::run_process({UCUDNN_CLI, "db", "export", "--lines", "--database", database}, {});
    EXPECT_EQ(exported.status, 0) << exported.err;
    return count_of(exported.out, R"("type":"plan")");
  };
  const auto offline_plans = stored_plans();
  EXPECT_EQ(offline_plans, 15) << "a WR plan per layer and operation";
  const ProgramRun alone = baseline({"--workspace-limit", cap});
  const ProgramRun job =
      preloaded({"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap},
                                             {"UCUDNN_BATCH_SIZE_POLICY", "powerOfTwo"},
                                             {"UCUDNN_DATABASE", database},
                                             {"UCUDNN_LOG_LEVEL", "info"},
                                             {"UCUDNN_KNOB_VARIANTS", "on"},
                                             {"FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1"}});
  expect_ran_on_doubles(job);
  expect_same_results(alone, job);
  EXPECT_EQ(count_of(job.process.err, "benchmarked"), 0) << job.process.err;
  EXPECT_EQ(count_of(job.process.err, " plan within "), 15) << job.process.err;
  EXPECT_GT(plans_with_fewer_buffers(job.process.err), 0) << job.process.err;
  EXPECT_EQ(stored_plans(), offline_plans) << "the job planned anew";
}

}  // namespace
}  // namespace ucudnn
