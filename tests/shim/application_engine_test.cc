// The application's own engine configuration as a candidate (issue 33, item 2): an application
// that builds an engine by its global index (examples/graph_conv.cc --engine-index), which the
// double's heuristics do not offer (FAKECUDA_HIDDEN_ENGINES), still has that engine measured
// beside the heuristics' configurations, so that ucudnn's plans, and the undivided baseline
// they are held against, include exactly what the application would have run. Predicted with
// ucudnn's planner over the doubles' cost model, with and without that engine.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "graph_api_harness.h"

namespace ucudnn {
namespace {

using testing::count_of;

// FFT for a forward convolution, WINOGRAD for BackwardData (none for BackwardFilter): fast, and
// without the TENSOR_CORE note, so that the application's choice of it keeps the kernels' math
// type (FMA) and with it their stored plans.
constexpr int kHidden = 4;

// The double's candidates when its heuristics hide engine `hidden`, and the application's own
// configuration (if any) after them, as the shim lists them.
class HiddenEngineModel final : public Benchmarker {
 public:
  HiddenEngineModel(std::int64_t hidden, std::string application)
      : hidden_(hidden), application_(std::move(application)) {}
  std::string backend_name() const override { return model_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return model_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    std::vector<std::string> names;
    for (auto& name : model_.algorithms(kernel))
      if (EngineName::parse(name)->engine != hidden_) names.push_back(std::move(name));
    if (!application_.empty() && std::find(names.begin(), names.end(), application_) == names.end())
      names.push_back(application_);
    return names;
  }
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    return model_.benchmark(kernel, algorithm, micro_batch);
  }

 private:
  fakecuda::ModelBenchmarker model_;
  std::int64_t hidden_;
  std::string application_;
};

// The engine the application runs for `kernel`: with --engine-index, the hidden one where it
// applies; else what the heuristics put first.
int application_engine(const KernelKey& kernel, bool by_index) {
  if (by_index && fakecuda::model_engine(kernel, kHidden, 1).supported) return kHidden;
  const auto ranking = heuristics_ranking(kernel, kHidden);
  return ranking.empty() ? -1 : ranking.front();
}

// The WR plan of every kernel within `limit` when the application builds the hidden engine by
// its index (or takes the heuristics' first), with the application's engine among the
// candidates (or not), kept to what the application's engine allows: determinism, and tensor
// cores only where it uses them.
std::vector<Configuration> plans_with(bool by_index, bool application_candidate,
                                      std::uint64_t limit) {
  std::vector<Configuration> plans;
  for (const auto& kernel : example_kernels(kBatch)) {
    const int engine = application_engine(kernel, by_index);
    HiddenEngineModel model(kHidden, application_candidate && engine == kHidden
                                         ? "eng" + std::to_string(kHidden)
                                         : std::string());
    plans.push_back(
        predicted_plan(model, kernel, carries_tensor_core_note(kernel.operation, engine), limit));
  }
  return plans;
}

class ApplicationEngine : public GraphApi {
 protected:
  static constexpr std::uint64_t kLimit = 64u << 20;  // the default: no split needed

  // The second iteration's convolutions (the first plans and measures).
  std::multiset<Call> steady_calls(const std::vector<std::string>& args, Environment environment) {
    const ProgramRun once = run(concat(args, {"--iterations", "1"}), environment, true);
    const ProgramRun twice = run(concat(args, {"--iterations", "2"}), environment, true);
    return minus(convolutions(twice.trace), convolutions(once.trace));
  }
};

TEST_F(ApplicationEngine, HiddenFromTheHeuristicsItIsStillACandidate) {
  const auto with = plans_with(true, true, kLimit);
  const auto without = plans_with(true, false, kLimit);
  int differ = 0;
  for (std::size_t k = 0; k < with.size(); ++k) differ += with[k] != without[k];
  ASSERT_GE(differ, 3) << "the hidden engine should be the fastest for several kernels";

  const std::vector<std::string> args = {"--engine-index", std::to_string(kHidden)};
  const Environment hidden = {{"FAKECUDA_HIDDEN_ENGINES", std::to_string(kHidden)}};
  const ProgramRun alone = run(concat(args, {"--iterations", "1"}), hidden, false);
  Environment logged = hidden;
  logged["UCUDNN_LOG_LEVEL"] = "info";
  const ProgramRun under = run(concat(args, {"--iterations", "1"}), logged, true);
  expect_same_results(alone, under);
  EXPECT_EQ(application_executes(under.trace), 0) << "ucudnn runs every plan here";
  EXPECT_EQ(steady_calls(args, hidden), calls_of(with));
  // The exit line's undivided baseline is the application's engine where it is the fastest:
  // nothing under no limit beats it, so the plans equal it.
  double planned_ms = 0, undivided_ms = 0;
  const auto at = under.process.err.find("GPU 0: ");
  ASSERT_NE(at, std::string::npos) << under.process.err;
  ASSERT_EQ(
      std::sscanf(under.process.err.c_str() + at,
                  "GPU 0: %*d kernels planned; planned convolution time %lf ms against %lf ms",
                  &planned_ms, &undivided_ms),
      2);
  EXPECT_NEAR(planned_ms, undivided_ms, 1e-6 * undivided_ms);
}

// The kernels whose stored plans lack the hidden engine once the application builds it: where
// the application's engine keeps the kernel's numerics (the same kernel key as with the
// heuristics' first).
std::size_t kernels_keeping_their_key() {
  std::size_t kept = 0;
  for (const auto& kernel : example_kernels(kBatch)) {
    const int by_index = application_engine(kernel, true),
              first = application_engine(kernel, false);
    const auto model = [&](int engine) {
      return fakecuda::algorithm_model(kernel.operation, engine);
    };
    kept += by_index == kHidden &&
            carries_tensor_core_note(kernel.operation, by_index) ==
                carries_tensor_core_note(kernel.operation, first) &&
            model(by_index)->deterministic == model(first)->deterministic;
  }
  return kept;
}

const std::string kReplanned =
    " was made without the application's engine configuration eng" + std::to_string(kHidden);

TEST_F(ApplicationEngine, AStoredPlanMadeWithoutItIsPlannedAgain) {
  const std::string database = database_path();
  Environment environment = {{"FAKECUDA_HIDDEN_ENGINES", std::to_string(kHidden)},
                             {"UCUDNN_DATABASE", database}};
  // First the heuristics' engines only: the plans are stored without the hidden one. (Each
  // steady state is read from runs that find everything stored.)
  run({"--iterations", "1"}, environment, true);
  EXPECT_EQ(steady_calls({}, environment), calls_of(plans_with(false, false, kLimit)));
  // Then the application builds the hidden engine: the stored plans lack a candidate and are
  // planned again.
  const std::size_t kept = kernels_keeping_their_key();
  ASSERT_GE(kept, 1u);
  environment["UCUDNN_LOG_LEVEL"] = "info";
  const std::vector<std::string> args = {"--engine-index", std::to_string(kHidden)};
  const ProgramRun replanned = run(concat(args, {"--iterations", "1"}), environment, true);
  EXPECT_EQ(count_of(replanned.process.err, kReplanned), static_cast<int>(kept))
      << replanned.process.err;
  environment.erase("UCUDNN_LOG_LEVEL");
  const auto replans = plans_with(true, true, kLimit);
  EXPECT_NE(calls_of(replans), calls_of(plans_with(true, false, kLimit)));
  EXPECT_EQ(steady_calls(args, environment), calls_of(replans));
}

// How many of a file database's measurements are of `configuration` at micro-batch `size`.
int measurements_of(const std::string& database, const std::string& configuration, int size) {
  sqlite3* db = nullptr;
  sqlite3_stmt* query = nullptr;
  int count = -1;
  if (sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
      sqlite3_prepare_v2(
          db, "SELECT COUNT(*) FROM measurements WHERE algorithm = ? AND micro_batch = ?", -1,
          &query, nullptr) == SQLITE_OK) {
    sqlite3_bind_text(query, 1, configuration.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(query, 2, size);
    if (sqlite3_step(query) == SQLITE_ROW) count = sqlite3_column_int(query, 0);
  }
  sqlite3_finalize(query);
  sqlite3_close(db);
  return count;
}

// A slow configuration of the application's is measured where it could win and skipped where it
// cannot (pruning): at the full batch, as every candidate, and below it only where a division
// of it could beat the best plan. The plans made with it are current: a later run keeps them
// instead of planning every kernel again, every run.
TEST_F(ApplicationEngine, ASlowConfigurationSkippedBelowTheFullBatchKeepsTheStoredPlans) {
  constexpr int kSlow = 0;  // IMPLICIT_GEMM, and its knob variants: hidden from the heuristics
  const std::string database = database_path();
  Environment environment = {{"FAKECUDA_HIDDEN_ENGINES", std::to_string(kSlow)},
                             {"UCUDNN_DATABASE", database}};
  const std::vector<std::string> args = {"--engine-index", std::to_string(kSlow), "--iterations",
                                         "1"};
  run(args, environment, true);
  const std::string slow = "eng" + std::to_string(kSlow);
  const int at_smallest = measurements_of(database, slow, 1);
  const int at_full_batch = measurements_of(database, slow, static_cast<int>(kBatch));
  ASSERT_GT(at_full_batch, 0) << "the application's configuration was a candidate";
  ASSERT_LT(at_smallest, at_full_batch) << "and was skipped below the full batch of some kernel";
  environment["UCUDNN_LOG_LEVEL"] = "info";
  const ProgramRun again = run(args, environment, true);
  EXPECT_EQ(count_of(again.process.err, "without the application's engine configuration"), 0)
      << again.process.err;
  EXPECT_EQ(count_of(again.process.err, "benchmarked "), 0) << again.process.err;
}

// The same for a stored CPU/GPU hybrid plan (UCUDNN_HYBRID=on): its GPU share is planned among
// the same candidates, so it too is planned again, once, and then reused.
TEST_F(ApplicationEngine, AStoredHybridPlanMadeWithoutItIsPlannedAgain) {
  const std::string database = database_path();
  Environment environment = {{"FAKECUDA_HIDDEN_ENGINES", std::to_string(kHidden)},
                             {"UCUDNN_DATABASE", database},
                             {"UCUDNN_HYBRID", "on"}};
  if (const std::string lsan = UCUDNN_DLOPEN_LSAN_OPTIONS; !lsan.empty())
    environment["LSAN_OPTIONS"] = lsan;  // the CPU backend is a plugin the shim opens
  run({"--iterations", "1"}, environment, true);
  environment["UCUDNN_LOG_LEVEL"] = "info";
  const std::vector<std::string> args = {"--engine-index", std::to_string(kHidden), "--iterations",
                                         "1"};
  const ProgramRun replanned = run(args, environment, true);
  const std::size_t kept = kernels_keeping_their_key();
  ASSERT_GE(kept, 1u);
  EXPECT_EQ(count_of(replanned.process.err, "a stored hybrid plan for"), static_cast<int>(kept))
      << replanned.process.err;
  EXPECT_EQ(count_of(replanned.process.err, kReplanned), static_cast<int>(2 * kept))
      << "the GPU's own plan and the hybrid plan of each kernel\n"
      << replanned.process.err;
  const ProgramRun reused = run(args, environment, true);
  EXPECT_EQ(count_of(reused.process.err, kReplanned), 0) << reused.process.err;
  EXPECT_EQ(count_of(reused.process.err, "hybrid plan within"),
            count_of(replanned.process.err, "hybrid plan within"))
      << "the same kernels run hybrid plans\n"
      << reused.process.err;
}

}  // namespace
}  // namespace ucudnn
