#pragma once
// The fixture of the suites that run examples/conv_network under ucudnn on the cuDNN/CUDA test
// doubles (end_to_end_test.cc, knob_variants_test.cc, planning_cost_test.cc,
// stored_plans_test.cc): the program with and without the preload, each run with a fresh seed, a
// folder of its own for databases, and the limits the suites plan within.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "example_program.h"
#include "support/random_seed.h"
#include "support/temp_folder.h"

namespace ucudnn {

constexpr std::int64_t kBatch = testing::kExampleBatch;
// The framework's per-layer workspace cap in the tight-limit runs: the fast algorithms fit
// only micro-batches of the layers under it.
constexpr std::uint64_t kTightLimit = 1536 * 1024;
constexpr std::uint64_t kTotalWorkspace = 4 << 20;

class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override { seed_ = std::to_string(random_.uniform(1, 1'000'000'000)); }

  testing::ProgramRun run(const std::string& program, std::vector<std::string> args,
                          testing::Environment environment, bool doubles = true) {
    return testing::run_example(program, args, std::move(environment), seed_, doubles);
  }
  testing::ProgramRun baseline(std::vector<std::string> args = {}) {
    return run(UCUDNN_EXAMPLE, args, {});
  }
  testing::ProgramRun preloaded(std::vector<std::string> args, testing::Environment environment) {
    environment["LD_PRELOAD"] = UCUDNN_PRELOAD;
    return run(UCUDNN_EXAMPLE, args, environment);
  }

  // The program under the preload at the workspace limit `limit`, with `setting` and a database
  // of its own (`database`, in the test's folder), logging at info; checked to have run on the
  // doubles with the results of `alone`. Settings compared side by side run this way.
  testing::ProgramRun preloaded_like(const testing::ProgramRun& alone, const std::string& limit,
                                     const char* database, testing::Environment setting) {
    setting["UCUDNN_WORKSPACE_LIMIT"] = limit;
    setting["UCUDNN_DATABASE"] = folder_.file(database);
    setting["UCUDNN_LOG_LEVEL"] = "info";
    testing::ProgramRun run = preloaded({"--workspace-limit", limit}, std::move(setting));
    testing::expect_ran_on_doubles(run);
    testing::expect_same_results(alone, run);
    return run;
  }

  // A database file of the test's own, removed with whatever SQLite and the shim leave beside
  // it (its lock file, a journal) however the test ends.
  std::string database_path() const { return folder_.file("ucudnn.db"); }

  testing::SeededRandom random_;
  std::string seed_;
  testing::TempFolder folder_{"ucudnn-e2e"};
};

}  // namespace ucudnn
