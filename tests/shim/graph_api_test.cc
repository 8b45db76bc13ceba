// The graph (backend) API under the shim, as PyTorch 2.x drives it: examples/graph_conv.cc
// builds each layer's operations as graphs, takes the heuristics' first engine, allocates the
// workspace the plan reports and executes a variant pack per run. It runs on the cuDNN/CUDA
// test doubles without the shim and with it, and the doubles' trace shows what reached cuDNN:
// the plans' micro-batches as legacy calls, or cuDNN's own engine (`backend-execute`). The
// micro-batches are predicted with ucudnn's planner over the doubles' cost model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "graph_api_harness.h"

namespace ucudnn {
namespace {

using testing::count_of;

// The line the shim logs at exit for device 0 (shim/planned_kernels.h): its counts, or nullopt
// where the log has no such line.
struct PlannedLine {
  int kernels = 0;
  double planned_ms = 0, undivided_ms = 0;
};
std::optional<PlannedLine> planned_line(const std::string& err) {
  const auto at = err.find("GPU 0: ");
  PlannedLine line;
  if (at == std::string::npos ||
      std::sscanf(err.c_str() + at,
                  "GPU 0: %d kernels planned; planned convolution time %lf ms against %lf ms",
                  &line.kernels, &line.planned_ms, &line.undivided_ms) != 3)
    return std::nullopt;
  return line;
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
  // The line at exit: every distinct kernel planned, the plans' time per iteration as
  // predicted (each kernel runs once an iteration here), and the best undivided candidates
  // within the limit slower.
  std::set<std::string> distinct;
  double predicted_ms = 0;
  const auto kernels = example_kernels(kBatch);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    distinct.insert(kernels[k].to_string());
    predicted_ms += plans[k].time_ms();
  }
  const auto planned = planned_line(twice.process.err);
  ASSERT_TRUE(planned) << twice.process.err;
  EXPECT_EQ(planned->kernels, static_cast<int>(distinct.size()));
  EXPECT_NEAR(planned->planned_ms, predicted_ms, 1e-5 * predicted_ms);
  EXPECT_GT(planned->undivided_ms, planned->planned_ms * 1.01)
      << "micro-batches should beat the undivided";
  EXPECT_NE(twice.process.err.find("per iteration, over the " + std::to_string(distinct.size()) +
                                   " kernels whose calls ran ucudnn's plans (the least-run "
                                   "kernel ran 2 times, taken as once per iteration)"),
            std::string::npos)
      << twice.process.err;
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
  // The slowest engines (no workspace, mostly), alone: ucudnn's plans need more than they do.
  // (An application that read the workspace of a graph's faster plans first and went past them
  // without executing leaves the graph to cuDNN: graph_claim.h.)
  const std::vector<std::string> args = {"--iterations", "1", "--engine-only", "99"};
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

// The forward engines the application takes (the heuristics' first for each layer's forward
// kernel), and the double's other forward engines.
struct ForwardEngines {
  std::set<int> application, others;
};

ForwardEngines forward_engines() {
  ForwardEngines engines;
  for (const auto& kernel : example_kernels(kBatch))
    if (kernel.operation == Operation::kForward) {
      const auto ranking = heuristics_ranking(kernel);
      if (!ranking.empty()) engines.application.insert(ranking.front());
    }
  for (int a = 0; a < fakecuda::algorithm_count(Operation::kForward); ++a)
    if (!engines.application.count(a)) engines.others.insert(a);
  return engines;
}

// FAKECUDA_ENGINE_NOTES giving each forward engine of `engines` the notes `notes`.
std::string forward_notes(const std::set<int>& engines, const std::string& notes) {
  std::string text;
  for (const int engine : engines) {
    if (!text.empty()) text += ';';
    text += "Forward:" + std::to_string(engine) + "=" + notes;
  }
  return text;
}

// The forward engines (cost_model.h's algorithm of the same index) whose convolutions ran.
std::set<int> forward_engines_run(const std::string& trace) {
  std::set<int> run;
  for (const auto& [operation, algorithm, images] : convolutions(trace))
    if (operation == "Forward")
      for (int a = 0; a < fakecuda::algorithm_count(Operation::kForward); ++a)
        if (fakecuda::algorithm_model(Operation::kForward, a)->name == algorithm) run.insert(a);
  return run;
}

// What the application's engine allows is what ucudnn's plans may use, for every operation
// and each note alone: a forward engine of cuDNN 9 may be NONDETERMINISTIC too (PyTorch's
// deterministic mode drops those for every operation), and an engine that reduces in reduced
// precision does not allow down-converted inputs (PyTorch always drops DOWN_CONVERT_INPUTS).
// The doubles give the other forward engines the forbidden note; under the tight limit, where
// ucudnn runs every plan as its own, none of them may run.
TEST_F(GraphApi, EachNoteOfTheApplicationsEngineIsHonouredAlone) {
  const ForwardEngines engines = forward_engines();
  ASSERT_FALSE(engines.others.empty());
  const Environment tight = {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(kTightLimit)}};
  const ProgramRun without = run({"--iterations", "1"}, {}, false);
  // Unmarked, ucudnn's plans run some of the other engines: marking them means something.
  const ProgramRun free = run({"--iterations", "1"}, tight, true);
  std::set<int> others_run;
  for (const int engine : forward_engines_run(free.trace))
    if (engines.others.count(engine)) others_run.insert(engine);
  ASSERT_FALSE(others_run.empty()) << free.trace;

  struct Case {
    const char* what;
    std::string notes;
    const char* math;  // the forward kernels' math type in the info log, where it says one
  };
  const Case cases[] = {
      {"nondeterministic", forward_notes(others_run, "nondeterministic"), nullptr},
      {"down-converting beside reduced-precision reductions",
       forward_notes(engines.application, "reduced_precision") + ";" +
           forward_notes(others_run, "down_convert"),
       "math=TENSOR_OP_REDUCED_PRECISION_REDUCTION "},
      {"reducing in reduced precision beside down-conversion",
       forward_notes(engines.application, "down_convert") + ";" +
           forward_notes(others_run, "reduced_precision"),
       "math=TENSOR_OP_DOWN_CONVERT "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Environment marked = tight;
    marked["FAKECUDA_ENGINE_NOTES"] = c.notes;
    marked["UCUDNN_LOG_LEVEL"] = "info";
    const ProgramRun with = run({"--iterations", "1"}, marked, true);
    expect_same_results(without, with);
    EXPECT_EQ(application_executes(with.trace), 0) << "ucudnn runs every plan here";
    for (const int engine : forward_engines_run(with.trace))
      EXPECT_EQ(others_run.count(engine), 0u) << "engine " << engine << " ran: " << c.notes;
    if (c.math) {
      EXPECT_GT(count_of(with.process.err, c.math), 0) << with.process.err;
    }
  }
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
TEST_F(GraphApi, PacksBuiltOnAnotherThreadRunUcudnnsPlansAndUnreadableOnesAreLeftToCudnn) {
  // No limit set: every engine fits what the application allocates. (Where an engine is over a
  // limit the user set, cuDNN cannot run it: graph_workspace_limit_test.cc.)
  const ProgramRun without = run({"--iterations", "2"}, {}, false);
  // Each pack built on a thread that then ends, destroyed on another: ucudnn's plans run as
  // where the packs are built on the executing thread.
  const ProgramRun elsewhere = run({"--iterations", "2", "--packs-elsewhere"}, {}, true);
  expect_same_results(without, elsewhere);
  EXPECT_EQ(application_executes(elsewhere.trace), 0);
  const ProgramRun here = run({"--iterations", "2"}, {}, true);
  EXPECT_EQ(application_executes(here.trace), 0);
  // Packs with intermediates set, which ucudnn cannot read: cuDNN runs the plans itself.
  const ProgramRun unreadable = run({"--iterations", "2", "--pack-intermediates"}, {}, true);
  expect_same_results(without, unreadable);
  EXPECT_EQ(application_executes(unreadable.trace), 2 * 3 * kLayers);
}

TEST_F(GraphApi, PlansWithoutAHandleAreLeftToCudnnWithOneWarning) {
  const ProgramRun without = run({"--iterations", "1", "--no-handle"}, {}, false);
  const ProgramRun with = run({"--iterations", "1", "--no-handle"}, {}, true);
  expect_same_results(without, with);
  EXPECT_EQ(application_executes(with.trace), 3 * kLayers);
  EXPECT_EQ(count_of(with.process.err, "names no cuDNN handle"), 1) << with.process.err;
}

// A size as format_byte_size prints it ("880 KiB", "1008.8 KiB"), in bytes; -1 if unreadable.
double printed_bytes(const char* text) {
  double value = 0;
  char unit[4] = {};
  if (std::sscanf(text, "%lf %3s", &value, unit) != 2) return -1;
  const std::string u = unit;
  return u == "B" ? value : u == "KiB" ? value * 1024 : u == "MiB" ? value * 1048576 : -1;
}

TEST_F(GraphApi, WorkspaceDivisionServesGraphPlans) {
  const ProgramRun without = run({"--iterations", "3"}, {}, false);
  const ProgramRun with =
      run({"--iterations", "3"},
          {{"UCUDNN_TOTAL_WORKSPACE_SIZE", "1MiB"}, {"UCUDNN_LOG_LEVEL", "info"}}, true);
  expect_same_results(without, with);
  // The line at exit: the most ucudnn held at once, within the total and at least each arena.
  const std::string held = "; the most workspace division held at once: ";
  const auto at = with.process.err.find(held);
  ASSERT_NE(at, std::string::npos) << with.process.err;
  ASSERT_LT(with.process.err.rfind("GPU 0: ", at), at) << "on the device's line at exit";
  const double peak = printed_bytes(with.process.err.c_str() + at + held.size());
  EXPECT_LE(peak, 1048576.0);
  int divisions = 0;
  std::istringstream lines(with.process.err);
  for (std::string line; std::getline(lines, line);) {
    const auto in = line.find(" ms in ");
    if (line.find("workspace division of") == std::string::npos || in == std::string::npos)
      continue;
    ++divisions;
    EXPECT_GE(peak * 1.001, printed_bytes(line.c_str() + in + 7)) << line;
  }
  EXPECT_GT(divisions, 0) << with.process.err;
  // Beside it, the divided plans' time against the best undivided candidates in the same room:
  // a division never picks what is slower than the undivided candidates its segments allow.
  const auto planned = planned_line(with.process.err);
  ASSERT_TRUE(planned) << with.process.err;
  std::set<std::string> distinct;
  for (const auto& kernel : example_kernels(kBatch)) distinct.insert(kernel.to_string());
  EXPECT_EQ(planned->kernels, static_cast<int>(distinct.size()));
  EXPECT_GT(planned->planned_ms, 0);
  EXPECT_LE(planned->planned_ms, planned->undivided_ms * (1 + 1e-6));
  EXPECT_NE(with.process.err.find("for the best undivided candidates within the workspace each "
                                  "kernel was given"),
            std::string::npos)
      << with.process.err;
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
  const std::string database = database_path();
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
