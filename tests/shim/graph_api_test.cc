// The graph (backend) API under the shim, as PyTorch 2.x drives it: examples/graph_conv.cc
// builds each layer's operations as graphs, takes the heuristics' first engine, allocates the
// workspace the plan reports and executes a variant pack per run. It runs on the cuDNN/CUDA
// test doubles without the shim and with it, and the doubles' trace shows what reached cuDNN:
// the plans' micro-batches as legacy calls, or cuDNN's own engine (`backend-execute`). The
// micro-batches are predicted with ucudnn's planner over the doubles' cost model.
#include <gtest/gtest.h>

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
#include "tensor_dump.h"

namespace ucudnn {
namespace {

using testing::count_of;
using Environment = std::map<std::string, std::optional<std::string>>;
constexpr std::int64_t kBatch = 8;
constexpr int kLayers = 5;
constexpr std::uint64_t kTightLimit = 200 * 1024;

struct ProgramRun {
  testing::ProcessResult process;
  std::vector<examples::DumpedTensor> tensors;
  std::string trace;
  std::vector<long long> workspaces;  // per layer: Forward, BackwardData, BackwardFilter
};

// (operation, algorithm, images) of every convolution the doubles ran.
using Call = std::tuple<std::string, std::string, long long>;

std::multiset<Call> convolutions(const std::string& trace) {
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

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Executions of the application's own plans: the double's trace names each execution's x
// tensor, and ucudnn's graphs use a uid of their own (GraphTensorIds in
// cudnn/convolution_graph.h).
int application_executes(const std::string& trace, const std::string& what = "backend-execute") {
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
  // gives (the real one on a GPU machine).
  ProgramRun run(std::vector<std::string> args, Environment environment, bool preload,
                 bool doubles = true) {
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
    EXPECT_EQ(r.process.status, 0) << r.process.out << r.process.err;
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

  testing::SeededRandom random_;
  std::string seed_;
};

// The engine configurations of an algorithm (it and its knob variants), as exclusion entries
// (engine ids are per operation: the exclusion is read for the operation's kernels).
std::string engine_entries(int algorithm) {
  const std::string id = "cudnn:eng" + std::to_string(algorithm);
  return id + "," + id + "{*}";
}

// What the doubles' heuristics put first for every kernel is deterministic: ucudnn keeps to
// the deterministic engines; and to tensor cores only where the application's engine uses
// them.
AlgorithmExclusion excluded_for(Operation operation, bool tensor_cores) {
  std::string text;
  for (int a = 0; a < fakecuda::algorithm_count(operation); ++a) {
    const auto* model = fakecuda::algorithm_model(operation, a);
    if (!model->deterministic ||
        (!tensor_cores && model->family == fakecuda::Family::kWinogradNonfused))
      text += (text.empty() ? "" : ",") + engine_entries(a);
  }
  return *AlgorithmExclusion::parse(text);
}

// Whether the engine the application takes for `kernel` (the double's heuristics rank engines
// by modeled time; the example takes the `rank`-th, or the last) carries the TENSOR_CORE note:
// only then may ucudnn's plan use engines with it (the non-fused Winograd ones).
bool tensor_cores_allowed(const KernelKey& kernel, int rank) {
  std::vector<std::pair<double, int>> engines;
  for (int a = 0; a < fakecuda::algorithm_count(kernel.operation); ++a)
    if (const auto m = fakecuda::model(kernel, a); m.supported) engines.emplace_back(m.time_ms, a);
  std::stable_sort(engines.begin(), engines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (engines.empty()) return false;
  const int taken = engines[std::min<std::size_t>(rank, engines.size() - 1)].second;
  return fakecuda::algorithm_model(kernel.operation, taken)->family ==
         fakecuda::Family::kWinogradNonfused;
}

// The WR plan of every kernel within `limit`, deterministic algorithms only, and tensor cores
// only where the application's engine (at `rank`) uses them.
std::vector<Configuration> predicted_plans(std::uint64_t limit, int rank = 0) {
  fakecuda::ModelBenchmarker model;
  std::vector<Configuration> plans;
  for (const auto& kernel : example_kernels(kBatch)) {
    const auto exclusion = excluded_for(kernel.operation, tensor_cores_allowed(kernel, rank));
    ExcludingBenchmarker allowed(model, exclusion);
    auto plan = plan_workspace_reuse(
        measure_micro_table(allowed, kernel, BatchSizePolicy::kPowerOfTwo, limit));
    EXPECT_TRUE(plan) << kernel.to_string();
    plans.push_back(plan ? *plan : Configuration{});
  }
  return plans;
}

std::multiset<Call> calls_of(const std::vector<Configuration>& plans) {
  static const char* kNames[] = {"Forward", "BackwardData", "BackwardFilter"};
  std::multiset<Call> calls;
  for (std::size_t k = 0; k < plans.size(); ++k)
    for (const auto& m : plans[k].micro)
      calls.insert({kNames[k % 3],
                    fakecuda::algorithm_of(static_cast<Operation>(k % 3), m.algorithm), m.batch});
  return calls;
}

std::multiset<Call> minus(const std::multiset<Call>& a, const std::multiset<Call>& b) {
  std::multiset<Call> left = a;
  for (const auto& call : b)
    if (auto at = left.find(call); at != left.end()) left.erase(at);
  return left;
}

TEST_F(GraphApi, ExecutionPlansRunTheirMicroBatchesWithTheUndividedResults) {
  const Environment tight = {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(kTightLimit)}};
  const std::vector<std::string> args = {"--filter-beta", "0.25"};
  const ProgramRun without = run(concat(args, {"--iterations", "2"}), {}, false);
  Environment logged = tight;
  logged["UCUDNN_LOG_LEVEL"] = "info";
  const ProgramRun once = run(concat(args, {"--iterations", "1"}), tight, true);
  const ProgramRun twice = run(concat(args, {"--iterations", "2"}), logged, true);
  expect_same_results(without, twice);
  // cuDNN's engines ran every operation without the shim, none with it.
  EXPECT_EQ(application_executes(without.trace), 2 * 3 * kLayers);
  EXPECT_EQ(application_executes(twice.trace), 0) << twice.trace;
  // The second iteration's calls are the predicted plans' micro-batches, exactly.
  const auto plans = predicted_plans(kTightLimit);
  const auto iteration = minus(convolutions(twice.trace), convolutions(once.trace));
  EXPECT_EQ(iteration, calls_of(plans));
  int micro_batched = 0;
  for (const auto& plan : plans) micro_batched += plan.micro.size() > 1;
  EXPECT_GE(micro_batched, 3) << "the tight limit should split several kernels";
  // The line at exit: every distinct kernel planned, the plans' time (each kernel once) as
  // predicted, and the best undivided candidates within the limit slower.
  std::set<std::string> distinct;
  double predicted_ms = 0;
  const auto kernels = example_kernels(kBatch);
  for (std::size_t k = 0; k < kernels.size(); ++k)
    if (distinct.insert(kernels[k].to_string()).second) predicted_ms += plans[k].time_ms();
  const auto at = twice.process.err.find("GPU 0: ");
  ASSERT_NE(at, std::string::npos) << twice.process.err;
  int planned_kernels = 0;
  double planned_ms = 0, undivided_ms = 0;
  ASSERT_EQ(std::sscanf(twice.process.err.c_str() + at,
                        "GPU 0: %d kernels planned; planned convolution time %lf ms against %lf ms",
                        &planned_kernels, &planned_ms, &undivided_ms),
            3);
  EXPECT_EQ(planned_kernels, static_cast<int>(distinct.size()));
  EXPECT_NEAR(planned_ms, predicted_ms, 1e-5 * predicted_ms);
  EXPECT_GT(undivided_ms, planned_ms * 1.01) << "micro-batches should beat the undivided";
  // Kept to determinism, and to the engine's use of tensor cores: the doubles' non-fused
  // Winograd engines carry the TENSOR_CORE note (their kernels are planned with TENSOR_OP
  // math), the others do not (FMA: no TF32 behind the framework's back).
  EXPECT_EQ(count_of(twice.process.err, "math=DEFAULT"), 0);
  EXPECT_GT(count_of(twice.process.err, "math=TENSOR_OP "), 0) << twice.process.err;
  EXPECT_GT(count_of(twice.process.err, "math=FMA "), 0) << twice.process.err;
  for (const char* nondeterministic_algorithm : {"algo=ALGO_0", "algo=ALGO_3"})
    EXPECT_EQ(count_of(twice.trace, nondeterministic_algorithm), 0) << nondeterministic_algorithm;
}

TEST_F(GraphApi, TheWorkspaceAnswerIsThePlansAndAtLeastTheEngines) {
  // The slowest engines (no workspace, mostly): ucudnn's plans need more than they do.
  const std::vector<std::string> args = {"--iterations", "1", "--engine-rank", "99"};
  const ProgramRun without = run(args, {}, false);
  const ProgramRun with = run(args, {}, true);  // the default limit, 64 MiB
  expect_same_results(without, with);
  ASSERT_EQ(without.workspaces.size(), 3u * kLayers);
  ASSERT_EQ(with.workspaces.size(), 3u * kLayers);
  const auto plans = predicted_plans(64u << 20, 99);
  int larger = 0;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    const long long expected = std::max<long long>(
        static_cast<long long>(plans[k].workspace_bytes()), without.workspaces[k]);
    EXPECT_EQ(with.workspaces[k], expected) << "kernel " << k;
    larger += with.workspaces[k] > without.workspaces[k];
  }
  // The double refuses a micro-batch whose workspace is short: the run above proves the
  // answer held; some plans must need more than their engine for that to mean something.
  EXPECT_GE(larger, 1);
}

TEST_F(GraphApi, DeterministicEnginesNeverGetNondeterministicAlgorithms) {
  // One byte: only the algorithms without workspace fit, and for both backward operations
  // those are nondeterministic: ucudnn must leave them to cuDNN's deterministic engine.
  const Environment one_byte = {{"UCUDNN_WORKSPACE_LIMIT", "1"}};
  const ProgramRun without = run({"--iterations", "1"}, {}, false);
  const ProgramRun with = run({"--iterations", "1", "--deterministic"}, one_byte, true);
  expect_same_results(without, with);
  EXPECT_EQ(count_of(with.trace, "algo=ALGO_0"), 0) << "a nondeterministic algorithm ran";
  EXPECT_EQ(application_executes(with.trace, "backend-execute op=BackwardData"), kLayers);
  EXPECT_EQ(application_executes(with.trace, "backend-execute op=BackwardFilter"), kLayers);
  EXPECT_EQ(application_executes(with.trace, "backend-execute op=Forward"),
            0);  // IMPLICIT_GEMM: planned
}

TEST_F(GraphApi, FusedGraphsAreLeftToCudnn) {
  const Environment tight = {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(kTightLimit)}};
  const ProgramRun without = run({"--graph", "fused", "--iterations", "1"}, {}, false);
  const ProgramRun with = run({"--graph", "fused", "--iterations", "1"}, tight, true);
  expect_same_results(without, with);
  EXPECT_EQ(application_executes(with.trace, "backend-execute op=Forward engine=0 n=8 epilogue=2"),
            kLayers);
  for (const auto& [op, algo, n] : convolutions(with.trace))
    if (op == "Forward") {
      EXPECT_EQ(n, kBatch) << "a fused forward was split";
    }
  EXPECT_EQ(application_executes(with.trace, "backend-execute op=Backward"), 0);
}

TEST_F(GraphApi, CapturedIterationsRunThePlansWithoutViolations) {
  const Environment tight = {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(kTightLimit)}};
  const ProgramRun without = run({"--iterations", "2"}, {}, false);
  const ProgramRun with = run({"--iterations", "2", "--capture"}, tight, true);
  expect_same_results(without, with);
  EXPECT_EQ(count_of(with.trace, "capture-violation"), 0) << with.trace;
  EXPECT_EQ(count_of(with.trace, "graph-launch"), 2 * kLayers);
  // The captured work is the plans' micro-batches.
  int captured_micro_batches = 0;
  std::istringstream lines(with.trace);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("captured ", 0) == 0 && line.find(" n=8") == std::string::npos)
      ++captured_micro_batches;
  EXPECT_GT(captured_micro_batches, 0);
}

// Variant packs are recorded by the thread that builds them (frameworks build and execute them
// on one): a pack built and destroyed on other threads than the one executing it is unknown
// there, and cuDNN runs the plan itself, with the application's own results.
TEST_F(GraphApi, PacksBuiltOnAnotherThreadAreLeftToCudnn) {
  const Environment tight = {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(kTightLimit)}};
  const ProgramRun without = run({"--iterations", "2"}, {}, false);
  const ProgramRun with = run({"--iterations", "2", "--packs-elsewhere"}, tight, true);
  expect_same_results(without, with);
  EXPECT_EQ(application_executes(with.trace), 2 * 3 * kLayers);
  // The same program building its packs where it executes them runs ucudnn's plans.
  const ProgramRun here = run({"--iterations", "2"}, tight, true);
  EXPECT_EQ(application_executes(here.trace), 0);
}

TEST_F(GraphApi, PlansWithoutAHandleAreLeftToCudnnWithOneWarning) {
  const ProgramRun without = run({"--iterations", "1", "--no-handle"}, {}, false);
  const ProgramRun with = run({"--iterations", "1", "--no-handle"}, {}, true);
  expect_same_results(without, with);
  EXPECT_EQ(application_executes(with.trace), 3 * kLayers);
  EXPECT_EQ(count_of(with.process.err, "names no cuDNN handle"), 1) << with.process.err;
}

TEST_F(GraphApi, WorkspaceDivisionServesGraphPlans) {
  const ProgramRun without = run({"--iterations", "3"}, {}, false);
  const ProgramRun with =
      run({"--iterations", "3"}, {{"UCUDNN_TOTAL_WORKSPACE_SIZE", "1MiB"}}, true);
  expect_same_results(without, with);
  EXPECT_EQ(application_executes(with.trace), 0);
  // The arena is ucudnn's: the application is told no more than its engines need.
  EXPECT_EQ(with.workspaces, without.workspaces);
  // The division keeps the engines' determinism too, in every segment and fallback.
  for (const char* nondeterministic_algorithm : {"algo=ALGO_0", "algo=ALGO_3"})
    EXPECT_EQ(count_of(with.trace, nondeterministic_algorithm), 0) << nondeterministic_algorithm;
}

// Jobs on one database, some with deterministic engines and some without, keep their own
// divisions: one byte leaves the backward kernels only the nondeterministic algorithms without
// workspace, so a division shared between the two kinds would be invalid for the deterministic
// job, discarded, divided anew and stored over the other's, at every start.
TEST_F(GraphApi, DeterministicAndUnrestrictedJobsKeepTheirOwnDivisions) {
  const std::string database =
      ::testing::TempDir() + "ucudnn-graph-wd-" + std::to_string(getpid()) + "-" + seed_ + ".db";
  std::remove(database.c_str());
  const Environment shared = {{"UCUDNN_TOTAL_WORKSPACE_SIZE", "1"},
                              {"UCUDNN_DATABASE", database},
                              {"UCUDNN_LOG_LEVEL", "info"}};
  const std::vector<std::string> unrestricted = {"--iterations", "3", "--engine-rank", "99"};
  const std::vector<std::string> deterministic = {"--iterations", "3"};
  const ProgramRun without = run(unrestricted, {}, false);
  const ProgramRun first = run(unrestricted, shared, true);
  // The slowest engines are nondeterministic for both backward operations: the premise.
  EXPECT_GT(count_of(first.trace, "op=BackwardData algo=ALGO_0"), 0) << first.trace;
  const ProgramRun other = run(deterministic, shared, true);
  const ProgramRun again = run(unrestricted, shared, true);
  const ProgramRun other_again = run(deterministic, shared, true);
  std::remove(database.c_str());
  expect_same_results(without, again);
  for (const ProgramRun* r : {&other, &again, &other_again})
    EXPECT_EQ(count_of(r->process.err, "discarding an invalid stored workspace division"), 0)
        << r->process.err;
  // Each later job finds its own division and measures nothing.
  for (const ProgramRun* r : {&again, &other_again}) {
    EXPECT_GT(count_of(r->process.err, "taken from the database"), 0) << r->process.err;
    EXPECT_EQ(count_of(r->process.err, " segment: ") + count_of(r->process.err, " segments: "), 0)
        << r->process.err;
  }
  EXPECT_EQ(count_of(other_again.trace, "algo=ALGO_0"), 0) << "a nondeterministic algorithm ran";
}

// The application's own plan is a candidate (UCUDNN_GRAPH_PLANS=compare, the default): where it
// is as fast as ucudnn's, or where the application built a faster one for the same kernel (a
// framework that autotunes times every configuration it finalizes and takes the fastest),
// cuDNN runs it; where ucudnn's is clearly faster, ucudnn runs its own. Each verdict follows
// from the times it names.
TEST_F(GraphApi, TheApplicationsPlanRunsWhereUcudnnsIsNoFaster) {
  // The doubles' GPU 100 times slower: this network's layers then take tens to hundreds of
  // microseconds, as real ones do, and the verdicts weigh GPU time, not the few microseconds
  // of host time a busy machine or an instrumented build adds to a call.
  const Environment slow = {{"FAKECUDA_GPU_SLOWDOWN", "100"}};
  const Environment compare = {{"UCUDNN_GRAPH_PLANS", "compare"},
                               {"UCUDNN_WORKSPACE_LIMIT", "1GiB"},
                               {"UCUDNN_LOG_LEVEL", "info"},
                               {"FAKECUDA_GPU_SLOWDOWN", "100"}};
  // The heuristics' first (the doubles' fastest in mode A); every configuration of mode A up to
  // the slowest, as an autotuner; the slowest alone. ucudnn's candidates also hold mode B's
  // (the split-K knob values of the GEMM engines), faster than any of mode A for some kernels:
  // its plan may win there, whatever the application chose.
  const std::vector<std::vector<std::string>> cases = {
      {"--engine-rank", "0"}, {"--engine-rank", "99"}, {"--engine-only", "99"}};
  for (const auto& case_args : cases) {
    SCOPED_TRACE(case_args.front().c_str());
    const std::vector<std::string> args = concat({"--iterations", "2"}, case_args);
    const ProgramRun without = run(args, slow, false);
    const ProgramRun with = run(args, compare, true);
    expect_same_results(without, with);
    int theirs = 0, ours = 0, protected_by_a_faster_one = 0;
    std::istringstream lines(with.process.err);
    for (std::string line; std::getline(lines, line);) {
      const auto at = line.find(": the application's plan ");
      if (at == std::string::npos) continue;
      double measured = 0, fastest = 0, planned = 0, their_host = 0, our_host = 0;
      ASSERT_EQ(std::sscanf(line.c_str() + at,
                            ": the application's plan %lf ms, %lf us host (workspace %*[^)]), its "
                            "fastest for the kernel %lf ms; ucudnn's %lf ms, %lf us host",
                            &measured, &their_host, &fastest, &planned, &our_host),
                5)
          << line;
      EXPECT_LE(fastest, measured) << line;
      // ucudnn's plan must save 3% of the GPU time and what it costs the host beyond the
      // application's (the numbers are printed rounded: a verdict on the edge is not judged).
      const double host_cost = (our_host - their_host) / 1000;
      const auto required = [&](double t) { return std::max(t * 0.03, host_cost); };
      const bool application = line.find("cuDNN runs the application's plan") != std::string::npos;
      if (std::abs(planned - (fastest - required(fastest))) > 3e-6) {
        EXPECT_EQ(application, planned > fastest - required(fastest)) << line;
      }
      protected_by_a_faster_one += application && planned <= measured - required(measured);
      (application ? theirs : ours) += 1;
    }
    EXPECT_GE(theirs + ours, 3 * kLayers) << with.process.err;
    EXPECT_EQ(count_of(with.process.err, "plan runs ucudnn's micro-batches"), ours);
    // The slowest engines alone lose to ucudnn's plans for some kernels by far more than any
    // host cost; elsewhere the verdicts above, each from its own numbers, are the test.
    if (case_args.front() == "--engine-only") {
      EXPECT_GT(ours, 0) << "the slowest engines alone should lose to ucudnn's plans";
    }
    // Where the application took mode A's fastest and no split-K configuration is faster
    // (the Winograd and FFT engines), its plan stays.
    if (case_args.back() == "0") {
      EXPECT_GT(theirs, 0) << "the application's fastest plans stay";
    }
    // The answer is the engine's own where the application's plan runs, never less.
    ASSERT_EQ(with.workspaces.size(), without.workspaces.size());
    for (std::size_t k = 0; k < with.workspaces.size(); ++k)
      EXPECT_GE(with.workspaces[k], without.workspaces[k]) << "kernel " << k;
    if (case_args.back() == "99" && case_args.front() == "--engine-rank") {
      EXPECT_GT(protected_by_a_faster_one, 0) << "slower configurations should have been met";
    }
  }
}

// The same program against the real cuDNN on a GPU (scripts/gpu-validate.sh). Different
// engines round differently (TF32 where the engine uses tensor cores), so results agree to a
// looser tolerance; a lost micro-batch or a wrong beta would be off by far more.
TEST_F(GraphApi, RealCudnnRunsThePlansWithTheEnginesResults) {
  const ProgramRun probe = run({"--iterations", "1", "--layers", "1"}, {}, false, false);
  if (probe.process.status != 0)
    GTEST_SKIP() << "no GPU with cuDNN here (graph_conv without the doubles exits "
                 << probe.process.status << ")";
  const std::vector<std::string> args = {"--iterations", "2", "--filter-beta", "0.25"};
  const ProgramRun without = run(args, {}, false, false);
  const ProgramRun with =
      run(args, {{"UCUDNN_WORKSPACE_LIMIT", "1MiB"}, {"UCUDNN_LOG_LEVEL", "info"}}, true, false);
  EXPECT_EQ(without.process.status, 0) << without.process.err;
  EXPECT_EQ(with.process.status, 0) << with.process.err;
  EXPECT_GE(count_of(with.process.err, "plan runs ucudnn's micro-batches"), 3 * kLayers)
      << with.process.err;
  ASSERT_EQ(with.tensors.size(), without.tensors.size());
  for (std::size_t t = 0; t < without.tensors.size(); ++t) {
    const auto& a = without.tensors[t].values;
    const auto& b = with.tensors[t].values;
    ASSERT_EQ(a.size(), b.size());
    EXPECT_LT(testing::relative_error(b, a), 5e-3) << without.tensors[t].name;
  }
}

}  // namespace
}  // namespace ucudnn
