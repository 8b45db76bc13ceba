#pragma once
// What the graph API suites share: examples/graph_conv run on the cuDNN/CUDA test doubles with
// the shim and without it (GraphApi::run), the doubles' trace read back as the convolutions
// that reached cuDNN, and the plans ucudnn's planner predicts over the doubles' cost model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "core/algorithm_exclusion.h"
#include "core/micro_table.h"
#include "core/workspace_reuse.h"
#include "cost_model.h"
#include "example_kernels.h"
#include "model_benchmarker.h"
#include "support/printed_text.h"
#include "support/random_seed.h"
#include "support/relative_error.h"
#include "support/subprocess.h"
#include "support/temp_folder.h"
#include "tensor_dump.h"

namespace ucudnn {

using Environment = std::map<std::string, std::optional<std::string>>;
inline constexpr std::int64_t kBatch = 8;
inline constexpr int kLayers = 5;
inline constexpr std::uint64_t kTightLimit = 200 * 1024;

struct ProgramRun {
  testing::ProcessResult process;
  std::vector<examples::DumpedTensor> tensors;
  std::string trace;
  std::vector<long long> workspaces;  // per layer: Forward, BackwardData, BackwardFilter
};

// (operation, algorithm, images) of every convolution the doubles ran.
using Call = std::tuple<std::string, std::string, long long>;

inline std::multiset<Call> convolutions(const std::string& trace) {
  std::multiset<Call> calls;
  std::istringstream lines(trace);
  for (std::string line; std::getline(lines, line);) {
    char op[32], algo[32];
    long long n = 0;
    if (std::sscanf(line.c_str(), "conv op=%31s algo=%31s n=%lld", op, algo, &n) == 3)
      calls.insert({op, algo, n});
  }
  return calls;
}

inline std::vector<std::string> concat(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Executions of the application's own plans: the double's trace names each execution's x
// tensor, and ucudnn's graphs use a uid of their own (GraphTensorIds in
// cudnn/convolution_graph.h).
inline int application_executes(const std::string& trace,
                                const std::string& what = "backend-execute") {
  const std::string ucudnns = "x_uid=30072";
  int count = 0;
  std::istringstream lines(trace);
  for (std::string line; std::getline(lines, line);)
    count += line.find(what) != std::string::npos && line.find(ucudnns) == std::string::npos;
  return count;
}

class GraphApi : public ::testing::Test {
 protected:
  void SetUp() override { seed_ = std::to_string(random_.uniform(1, 1'000'000'000)); }

  // `doubles`: the test doubles first on the library path; otherwise the cuDNN the environment
  // gives (the real one on a GPU machine). On the doubles the program must end with `status`.
  ProgramRun run(std::vector<std::string> args, Environment environment, bool preload,
                 bool doubles = true, int status = 0) {
    static int counter = 0;
    const std::string stem = ::testing::TempDir() + "ucudnn-graph-" + std::to_string(getpid()) +
                             "-" + std::to_string(counter++);
    const std::string dump = stem + ".dump", trace = stem + ".trace";
    std::vector<std::string> argv = {
        UCUDNN_GRAPH_EXAMPLE, "--batch", std::to_string(kBatch), "--seed", seed_, "--dump", dump};
    argv.insert(argv.end(), args.begin(), args.end());
    if (doubles) environment["LD_LIBRARY_PATH"] = UCUDNN_FAKECUDA_DIR;
    environment["FAKECUDA_TRACE"] = trace;
    environment["LD_PRELOAD"] = preload ? std::optional<std::string>(UCUDNN_PRELOAD) : std::nullopt;
    environment.try_emplace("UCUDNN_DATABASE", ":memory:");
    environment.try_emplace("UCUDNN_BENCHMARK_REPEATS", "1");
    // These tests are about how ucudnn runs its plans: it runs every one it has, unless a test
    // asks for the comparison with the application's own plan (UCUDNN_GRAPH_PLANS=compare).
    environment.try_emplace("UCUDNN_GRAPH_PLANS", "ucudnn");
    ProgramRun r;
    r.process = testing::run_process(argv, environment);
    std::istringstream lines(r.process.out);
    for (std::string line; std::getline(lines, line);) {
      long long e[3], w[3];
      char name[16];
      if (std::sscanf(line.c_str(),
                      "%15[^:]: Forward engine %lld workspace %lld, BackwardData engine %lld "
                      "workspace %lld, BackwardFilter engine %lld workspace %lld",
                      name, &e[0], &w[0], &e[1], &w[1], &e[2], &w[2]) == 7)
        r.workspaces.insert(r.workspaces.end(), {w[0], w[1], w[2]});
    }
    try {
      r.tensors = examples::read_tensor_dump(dump);
    } catch (const std::exception&) {
    }
    r.trace = testing::read_file(trace);
    std::remove(dump.c_str());
    std::remove(trace.c_str());
    if (!doubles) return r;
    EXPECT_EQ(r.process.status, status) << r.process.out << r.process.err;
    EXPECT_NE(r.trace.find("fakecuda loaded"), std::string::npos) << "the doubles were not loaded";
    return r;
  }

  static void expect_same_results(const ProgramRun& expected, const ProgramRun& actual) {
    ASSERT_EQ(expected.tensors.size(), 3u * kLayers);
    ASSERT_EQ(actual.tensors.size(), expected.tensors.size());
    for (std::size_t t = 0; t < expected.tensors.size(); ++t) {
      const auto& a = expected.tensors[t].values;
      const auto& b = actual.tensors[t].values;
      ASSERT_EQ(a.size(), b.size());
      EXPECT_LT(testing::relative_error(b, a), 1e-6) << expected.tensors[t].name;
    }
  }

  // A database file of the test's own, removed with whatever SQLite and the shim leave beside
  // it (its lock file, a journal) however the test ends.
  std::string database_path() const { return folder_.file("ucudnn.db"); }

  testing::SeededRandom random_;
  std::string seed_;
  testing::TempFolder folder_{"ucudnn-graph"};
};

// The engine configurations of an algorithm (it and its knob variants), as exclusion entries
// (engine ids are per operation: the exclusion is read for the operation's kernels).
inline std::string engine_entries(int algorithm) {
  const std::string id = "cudnn:eng" + std::to_string(algorithm);
  return id + "," + id + "{*}";
}

// What the doubles' heuristics put first for every kernel is deterministic: ucudnn keeps to
// the deterministic engines; and to tensor cores only where the application's engine uses
// them.
inline AlgorithmExclusion excluded_for(Operation operation, bool tensor_cores) {
  std::string text;
  for (int a = 0; a < fakecuda::algorithm_count(operation); ++a) {
    const auto* model = fakecuda::algorithm_model(operation, a);
    if (!model->deterministic ||
        (!tensor_cores && model->family == fakecuda::Family::kWinogradNonfused))
      text += (text.empty() ? "" : ",") + engine_entries(a);
  }
  return *AlgorithmExclusion::parse(text);
}

// The engines the double's heuristics return for `kernel` (mode A), fastest modeled time first,
// without `hidden` (FAKECUDA_HIDDEN_ENGINES; -1: none).
inline std::vector<int> heuristics_ranking(const KernelKey& kernel, int hidden = -1) {
  std::vector<std::pair<double, int>> engines;
  for (int a = 0; a < fakecuda::algorithm_count(kernel.operation); ++a)
    if (const auto m = fakecuda::model(kernel, a); m.supported && a != hidden)
      engines.emplace_back(m.time_ms, a);
  std::stable_sort(engines.begin(), engines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<int> ranking;
  for (const auto& [time, engine] : engines) ranking.push_back(engine);
  return ranking;
}

// Whether the double's engine carries the TENSOR_CORE note (the non-fused Winograd ones): only
// where the application's does may ucudnn's plan use such engines (TENSOR_OP math).
inline bool carries_tensor_core_note(Operation operation, int engine) {
  return fakecuda::algorithm_model(operation, engine)->family ==
         fakecuda::Family::kWinogradNonfused;
}

// Whether the engine the application takes for `kernel` (the example takes the heuristics'
// `rank`-th, or the last) carries the TENSOR_CORE note.
inline bool tensor_cores_allowed(const KernelKey& kernel, int rank) {
  const auto ranking = heuristics_ranking(kernel);
  if (ranking.empty()) return false;
  return carries_tensor_core_note(kernel.operation,
                                  ranking[std::min<std::size_t>(rank, ranking.size() - 1)]);
}

// The WR plan of `kernel` within `limit` among `device`'s candidates, deterministic ones only,
// and tensor cores only where the application's engine uses them.
inline Configuration predicted_plan(Benchmarker& device, const KernelKey& kernel, bool tensor_cores,
                                    std::uint64_t limit) {
  const auto exclusion = excluded_for(kernel.operation, tensor_cores);
  ExcludingBenchmarker allowed(device, exclusion);
  auto plan = plan_workspace_reuse(
      measure_micro_table(allowed, kernel, BatchSizePolicy::kPowerOfTwo, limit));
  EXPECT_TRUE(plan) << kernel.to_string();
  return plan ? *plan : Configuration{};
}

// The WR plan of every kernel within `limit`, the application's engine taken at `rank`.
inline std::vector<Configuration> predicted_plans(
    std::uint64_t limit, int rank = 0,
    const std::vector<KernelKey>& kernels = example_kernels(kBatch)) {
  fakecuda::ModelBenchmarker model;
  std::vector<Configuration> plans;
  for (const auto& kernel : kernels)
    plans.push_back(predicted_plan(model, kernel, tensor_cores_allowed(kernel, rank), limit));
  return plans;
}

inline std::multiset<Call> calls_of(const std::vector<Configuration>& plans) {
  static const char* kNames[] = {"Forward", "BackwardData", "BackwardFilter"};
  std::multiset<Call> calls;
  for (std::size_t k = 0; k < plans.size(); ++k)
    for (const auto& m : plans[k].micro)
      calls.insert({kNames[k % 3],
                    fakecuda::algorithm_of(static_cast<Operation>(k % 3), m.algorithm), m.batch});
  return calls;
}

inline std::multiset<Call> minus(const std::multiset<Call>& a, const std::multiset<Call>& b) {
  std::multiset<Call> left = a;
  for (const auto& call : b)
    if (auto at = left.find(call); at != left.end()) left.erase(at);
  return left;
}

}  // namespace ucudnn
