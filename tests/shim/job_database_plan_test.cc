// `ucudnn plan` on the database a job filled under the preload (examples/conv_network on the
// cuDNN/CUDA test doubles): the shim measures only what can win at its limit, so a plan of
// every measurement cannot be made from it; `--measured-only` plans among what is there, and
// at the job's limit and policy that is the plan the job ran, kernel by kernel.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "core/configuration.h"
#include "end_to_end_fixture.h"
#include "example_kernels.h"
#include "support/subprocess.h"

namespace ucudnn {
namespace {

using testing::expect_ran_on_doubles;
using testing::ProgramRun;

// "Forward x=[16,3,16,16] w=[16,3,5,5]" -> "cudnn:eng1{k2=0,k12=2}:8 x2": the shim's "plan
// within" lines at info.
std::map<std::string, std::string> plans_in_log(const std::string& err) {
  static const std::regex line("info: (\\S+ x=\\S+ w=\\S+) plan within [^:]+: (.+) \\(");
  std::map<std::string, std::string> plans;
  for (auto it = std::sregex_iterator(err.begin(), err.end(), line); it != std::sregex_iterator();
       ++it)
    plans[(*it)[1].str()] = (*it)[2].str();
  return plans;
}

// The same from `ucudnn plan --json`: each kernel's WR plan as the shim's log writes it.
std::map<std::string, std::string> plans_in_json(const std::string& out) {
  static const std::regex key("op=(\\S+) (x=\\[[^\\]]*\\]):\\S+ (w=\\[[^\\]]*\\])");
  std::map<std::string, std::string> plans;
  const auto read = nlohmann::json::parse(out);  // named: the loop's range must outlive it
  for (const auto& kernel : read.at("kernels")) {
    std::smatch m;
    const std::string text = kernel.at("kernel_key").get<std::string>();
    if (!std::regex_search(text, m, key)) continue;
    Configuration plan;
    for (const auto& micro : kernel.at("plan").at("micro"))
      plan.micro.push_back({micro.at("backend").get<std::string>(),
                            micro.at("algorithm").get<std::string>(),
                            micro.at("batch").get<std::int64_t>(), 0, 0});
    plans[m[1].str() + " " + m[2].str() + " " + m[3].str()] = plan.to_string();
  }
  return plans;
}

TEST_F(EndToEnd, ThePlanReadFromAJobsDatabaseWithMeasuredOnlyIsThePlanTheJobRan) {
  // 64 KiB: some kernels run micro-batches (their engines' buffers fit at half the batch).
  const std::string cap = "65536", network = folder_.file("network.json");
  std::ofstream(network) << example_network_file();
  const ProgramRun job =
      preloaded({"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap},
                                             {"UCUDNN_DATABASE", database_path()},
                                             {"UCUDNN_LOG_LEVEL", "info"}});
  expect_ran_on_doubles(job);
  const auto ran = plans_in_log(job.process.err);
  ASSERT_EQ(ran.size(), 15u) << job.process.err;
  const testing::Environment doubles = {{"LD_LIBRARY_PATH", UCUDNN_FAKECUDA_DIR},
                                        {"LD_PRELOAD", std::nullopt},
                                        {"FAKECUDA_TRACE", std::nullopt},
                                        {"FAKECUDA_COMPUTE", "0"}};
  const std::vector<std::string> plan = {
      UCUDNN_CLI,  "plan",  "--backend",         "cudnn", "--batch",    std::to_string(kBatch),
      "--network", network, "--workspace-limit", cap,     "--database", database_path()};
  // Without the flag: what is missing is named, and the flag offered.
  const auto refused = testing::run_process(plan, doubles);
  EXPECT_NE(refused.status, 0);
  EXPECT_NE(refused.err.find("or plan among the measurements it has with --measured-only"),
            std::string::npos)
      << refused.err;
  auto measured_only = plan;
  measured_only.insert(measured_only.end(), {"--measured-only", "--json"});
  const auto read = testing::run_process(measured_only, doubles);
  ASSERT_EQ(read.status, 0) << read.err;
  EXPECT_NE(read.err.find("planned among the measurements the database has"), std::string::npos)
      << read.err;
  // Configurations, not times: both plan with the same planner over the same measurements.
  // (Where the doubles gave two configurations equal times, a tie broken by the candidates'
  // order, which the heuristics set for the shim and the database for the tool, could differ.)
  EXPECT_EQ(plans_in_json(read.out), ran);
  int divided = 0;
  for (const auto& [kernel, configuration] : ran)
    divided += configuration.find(" x") != std::string::npos;
  EXPECT_GT(divided, 0) << "the limit divides some kernels, so the comparison shows micro-batches";
}

// A kernel the database has no measurement of at all is still refused under the flag: there is
// nothing to plan it among.
TEST_F(EndToEnd, MeasuredOnlyStillRefusesAKernelTheDatabaseHasNothingOf) {
  // The example's layers and one the job never ran.
  std::string file = example_network_file();
  file.insert(file.rfind("]}"), R"(, {"name": "extra", "input": [8, 6, 6], "output_channels": 8, )"
                                R"("filter": [3, 3], "padding": 1})");
  const std::string network = folder_.file("network.json");
  std::ofstream(network) << file;
  const ProgramRun job = preloaded({}, {{"UCUDNN_DATABASE", database_path()}});
  expect_ran_on_doubles(job);
  const auto read = testing::run_process(
      {UCUDNN_CLI, "plan", "--backend", "cudnn", "--batch", std::to_string(kBatch), "--network",
       network, "--database", database_path(), "--measured-only"},
      {{"LD_LIBRARY_PATH", UCUDNN_FAKECUDA_DIR},
       {"LD_PRELOAD", std::nullopt},
       {"FAKECUDA_TRACE", std::nullopt},
       {"FAKECUDA_COMPUTE", "0"}});
  EXPECT_NE(read.status, 0);
  EXPECT_NE(read.err.find("the database does not have, of 3 kernels: extra Forward, extra "
                          "BackwardData, extra BackwardFilter"),
            std::string::npos)
      << read.err;
}

}  // namespace
}  // namespace ucudnn
