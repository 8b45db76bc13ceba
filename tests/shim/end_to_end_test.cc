// The example program (examples/conv_network.cc), which drives convolution layers the way a
// framework does and knows nothing of ucudnn, run on the cuDNN/CUDA test doubles: without
// the shim, under LD_PRELOAD, and as its UcudnnHandle_t variant. The doubles compute exactly
// and time by a fixed model (tests/fakecuda/cost_model.h), so this test predicts from the
// model what the planner must achieve and checks it to the last digit the program prints:
// same results as without ucudnn, micro-batched calls seen by the doubles, and the modeled
// time of the plans (WR and WD) beating the undivided choice by the predicted factor.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "core/workspace_division.h"
#include "core/workspace_reuse.h"
#include "cost_model.h"
#include "network_layers.h"
#include "support/random_seed.h"
#include "support/subprocess.h"
#include "tensor_dump.h"

namespace ucudnn {
namespace {

using Environment = std::map<std::string, std::optional<std::string>>;
constexpr std::int64_t kBatch = 16;
// The framework's per-layer workspace cap in the tight-limit runs: the fast algorithms fit
// only micro-batches of the layers under it.
constexpr std::uint64_t kTightLimit = 1536 * 1024;
constexpr std::uint64_t kTotalWorkspace = 4 << 20;

// The doubles' model as a planner device: what the shim measures on them, exactly.
class ModelBenchmarker final : public Benchmarker {
 public:
  std::string backend_name() const override { return "cudnn"; }
  DeviceFingerprint fingerprint() const override { return {{{"kind", "model"}}}; }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    std::vector<std::string> names;
    for (int a = 0; a < fakecuda::algorithm_count(kernel.operation); ++a)
      names.emplace_back(fakecuda::algorithm_model(kernel.operation, a)->name);
    return names;
  }
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    for (int a = 0; a < fakecuda::algorithm_count(kernel.operation); ++a)
      if (fakecuda::algorithm_model(kernel.operation, a)->name == algorithm) {
        const auto modeled = fakecuda::model(kernel.with_batch(micro_batch), a);
        if (!modeled.supported) return std::nullopt;
        // The doubles report times through cudaEventElapsedTime, a float.
        return Measurement{static_cast<float>(modeled.time_ms), modeled.workspace_bytes};
      }
    return std::nullopt;
  }
};

// The kernels of the example at batch `batch`, in the order it runs them.
std::vector<KernelKey> example_kernels(std::int64_t batch) {
  std::vector<KernelKey> kernels;
  for (const auto& l : examples::kLayers) {
    auto shape = [&](std::vector<std::int64_t> dims) {
      return l.channels_last ? TensorShape::packed_channels_last(std::move(dims))
                             : TensorShape::packed(std::move(dims));
    };
    const auto out_h = convolution_output_size(l.height, l.filter_h, l.pad, l.stride, l.dilation);
    const auto out_w = convolution_output_size(l.width, l.filter_w, l.pad, l.stride, l.dilation);
    ConvolutionProblem p;
    p.x = shape({batch, l.in_channels, l.height, l.width});
    p.w = shape({l.out_channels, l.in_channels / l.groups, l.filter_h, l.filter_w});
    p.y = shape({batch, l.out_channels, out_h, out_w});
    p.padding = {l.pad, l.pad};
    p.stride = {l.stride, l.stride};
    p.dilation = {l.dilation, l.dilation};
    p.groups = l.groups;
    p.mode =
        l.convolution_mode ? ConvolutionMode::kConvolution : ConvolutionMode::kCrossCorrelation;
    for (auto op : {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter})
      kernels.push_back({op, p});
  }
  return kernels;
}

struct Prediction {
  double undivided_ms = 0;  // the framework's own choice: fastest algorithm within the cap
  double reuse_ms = 0;      // WR plans within the cap
  double division_ms = 0;   // the WD plan in the total workspace
  double learning_ms = 0;   // WD's first iteration: WR plans within the total
};

Prediction predict(std::uint64_t cap, std::uint64_t total) {
  ModelBenchmarker model;
  Prediction p;
  std::vector<KernelCandidates> candidates;
  for (const auto& kernel : example_kernels(kBatch)) {
    const auto table =
        measure_micro_table(model, kernel, BatchSizePolicy::kPowerOfTwo, kNoWorkspaceLimit);
    const auto within_cap = restrict_to_limit(table, cap);
    const auto* undivided = fastest(within_cap.candidates.back());
    auto reuse = plan_workspace_reuse(within_cap);
    auto learning = plan_workspace_reuse(restrict_to_limit(table, total));
    if (!undivided || !reuse || !learning) {
      ADD_FAILURE() << "no plan for " << kernel.to_string();
      return p;
    }
    p.undivided_ms += undivided->time_ms;
    p.reuse_ms += reuse->time_ms();
    p.learning_ms += learning->time_ms();
    candidates.push_back(
        {kernel.to_string(), desirable_configurations(restrict_to_limit(table, total))});
  }
  auto division = plan_workspace_division(candidates, total);
  EXPECT_TRUE(division) << division.error();
  if (division) p.division_ms = division->time_ms;
  return p;
}

struct ProgramRun {
  testing::ProcessResult process;
  std::vector<double> iteration_ms;
  std::vector<examples::DumpedTensor> tensors;
  std::string trace;
};

class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override { seed_ = std::to_string(random_.uniform(1, 1'000'000'000)); }

  ProgramRun run(const std::string& program, std::vector<std::string> args,
                 Environment environment) {
    static int counter = 0;
    const std::string stem = ::testing::TempDir() + "ucudnn-e2e-" + std::to_string(getpid()) + "-" +
                             std::to_string(counter++);
    const std::string dump = stem + ".dump", trace = stem + ".trace";
    std::vector<std::string> argv = {program,  "--batch", std::to_string(kBatch), "--seed", seed_,
                                     "--dump", dump};
    argv.insert(argv.end(), args.begin(), args.end());
    environment["LD_LIBRARY_PATH"] = UCUDNN_FAKECUDA_DIR;
    environment["FAKECUDA_TRACE"] = trace;
    environment.try_emplace("UCUDNN_DATABASE", ":memory:");
    // The doubles' times are exact: one timed run per measurement is enough.
    environment.try_emplace("UCUDNN_BENCHMARK_REPEATS", "1");
    environment.try_emplace("LD_PRELOAD", std::nullopt);
    ProgramRun result;
    result.process = testing::run_process(argv, environment);
    std::istringstream lines(result.process.out);
    for (std::string line; std::getline(lines, line);) {
      int index = 0;
      double ms = 0;
      if (std::sscanf(line.c_str(), "iteration %d: %lf ms", &index, &ms) == 2)
        result.iteration_ms.push_back(ms);
    }
    try {
      result.tensors = examples::read_tensor_dump(dump);
    } catch (const std::exception& error) {
      ADD_FAILURE() << error.what() << "\n" << result.process.out << result.process.err;
    }
    result.trace = testing::read_file(trace);
    std::remove(dump.c_str());
    std::remove(trace.c_str());
    return result;
  }
  ProgramRun baseline(std::vector<std::string> args = {}) { return run(UCUDNN_EXAMPLE, args, {}); }
  ProgramRun preloaded(std::vector<std::string> args, Environment environment) {
    environment["LD_PRELOAD"] = UCUDNN_PRELOAD;
    return run(UCUDNN_EXAMPLE, args, environment);
  }

  static void expect_ran_on_doubles(const ProgramRun& r) {
    EXPECT_EQ(r.process.status, 0) << r.process.out << r.process.err;
    EXPECT_NE(r.process.out.find("fakecuda"), std::string::npos) << "the doubles were not loaded:\n"
                                                                 << r.process.out;
    EXPECT_NE(r.trace.find("fakecuda loaded"), std::string::npos);
  }
  static void expect_same_results(const ProgramRun& expected, const ProgramRun& actual) {
    ASSERT_EQ(expected.tensors.size(), actual.tensors.size());
    ASSERT_EQ(expected.tensors.size(), 15u);  // y, dx, dw of 5 layers
    for (std::size_t t = 0; t < expected.tensors.size(); ++t) {
      const auto& a = expected.tensors[t];
      const auto& b = actual.tensors[t];
      ASSERT_EQ(a.name, b.name);
      ASSERT_EQ(a.values.size(), b.values.size()) << a.name;
      double difference = 0, norm = 0;
      for (std::size_t i = 0; i < a.values.size(); ++i) {
        difference += std::pow(double(a.values[i]) - b.values[i], 2);
        norm += std::pow(double(a.values[i]), 2);
      }
      EXPECT_LT(std::sqrt(difference / norm), 1e-5) << a.name;
    }
  }
  // Calls the doubles ran on fewer images than the batch: micro-batches.
  static int micro_batched_calls(const std::string& trace) {
    int count = 0;
    std::istringstream lines(trace);
    for (std::string line; std::getline(lines, line);) {
      long long n = 0;
      if (line.rfind("conv ", 0) == 0 &&
          std::sscanf(line.c_str() + line.find(" n="), " n=%lld", &n) == 1 && n < kBatch)
        ++count;
    }
    return count;
  }
  static int count_of(const std::string& text, const std::string& what) {
    int count = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
    return count;
  }

  testing::SeededRandom random_;
  std::string seed_;
};

// The program prints times with 6 decimals of a millisecond.
void expect_time(double measured, double predicted, const char* what) {
  EXPECT_NEAR(measured, predicted, 2e-6 + 1e-5 * predicted) << what;
}

TEST_F(EndToEnd, WorkspaceReuseUnderPreloadBeatsUndividedByTheModeledFactor) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  ASSERT_GT(prediction.undivided_ms / prediction.reuse_ms, 1.2)
      << "the tight limit should leave room for micro-batching to win";
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with = preloaded({"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(without);
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(micro_batched_calls(without.trace), 0);
  EXPECT_GT(micro_batched_calls(with.trace), 0);
  ASSERT_EQ(without.iteration_ms.size(), 3u);
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    expect_time(without.iteration_ms[i], prediction.undivided_ms, "undivided");
    expect_time(with.iteration_ms[i], prediction.reuse_ms, "WR plan");
  }
  std::printf("WR: undivided %.6f ms, planned %.6f ms, speedup %.3fx (model predicts %.3fx)\n",
              without.iteration_ms.back(), with.iteration_ms.back(),
              without.iteration_ms.back() / with.iteration_ms.back(),
              prediction.undivided_ms / prediction.reuse_ms);
}

// FindEx: the limit is the workspace the application passes (no UCUDNN_WORKSPACE_LIMIT).
TEST_F(EndToEnd, FindExTakesTheLimitFromTheApplicationsWorkspace) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  const std::vector<std::string> args = {"--select", "findex", "--workspace-limit",
                                         std::to_string(kTightLimit)};
  const ProgramRun without = baseline(args);
  const ProgramRun with = preloaded(args, {});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_GT(micro_batched_calls(with.trace), 0);
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  expect_time(without.iteration_ms.back(), prediction.undivided_ms, "undivided");
  expect_time(with.iteration_ms.back(), prediction.reuse_ms, "WR plan");
}

TEST_F(EndToEnd, WorkspaceDivisionLearnsTheNetworkThenDividesOneArena) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with =
      preloaded({"--workspace-limit", cap},
                {{"UCUDNN_TOTAL_WORKSPACE_SIZE", std::to_string(kTotalWorkspace)}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  // Iteration 0 learns the kernels (WR within the total); the ILP runs when conv1 repeats.
  expect_time(with.iteration_ms[0], prediction.learning_ms, "learning iteration");
  expect_time(with.iteration_ms[1], prediction.division_ms, "divided iteration");
  expect_time(with.iteration_ms[2], prediction.division_ms, "divided iteration");
  EXPECT_LT(prediction.division_ms, prediction.undivided_ms);
  EXPECT_EQ(count_of(with.trace, "malloc bytes=" + std::to_string(kTotalWorkspace) + " ok=1"), 1)
      << "one arena, allocated once";
  std::printf("WD: undivided %.6f ms, divided %.6f ms in %llu bytes: %.3fx\n",
              without.iteration_ms.back(), with.iteration_ms.back(),
              static_cast<unsigned long long>(kTotalWorkspace),
              without.iteration_ms.back() / with.iteration_ms.back());
}

TEST_F(EndToEnd, WorkspaceDivisionFallsBackToReuseWhenTheArenaCannotBeAllocated) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  // The doubles' device is too small for the arena, not for the program.
  const ProgramRun with =
      preloaded({"--workspace-limit", cap}, {{"UCUDNN_TOTAL_WORKSPACE_SIZE", "3GiB"},
                                             {"FAKECUDA_MEMORY_BYTES", std::to_string(64 << 20)}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(count_of(with.process.err, "workspace division"), 1) << with.process.err;
  EXPECT_EQ(count_of(with.trace, "ok=0"), 1) << "one failed cudaMalloc: the arena";
}

TEST_F(EndToEnd, UcudnnHandleVariantPlansLikeThePreload) {
  const auto prediction = predict(kTightLimit, kTotalWorkspace);
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with =
      run(UCUDNN_EXAMPLE_UCUDNN, {"--workspace-limit", cap}, {{"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_GT(micro_batched_calls(with.trace), 0);
  ASSERT_EQ(with.iteration_ms.size(), 3u);
  expect_time(with.iteration_ms.back(), prediction.reuse_ms, "WR plan");
}

TEST_F(EndToEnd, ThreadsWithTheirOwnHandlesGetIdenticalResults) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with =
      preloaded({"--workspace-limit", cap, "--threads", "4"}, {{"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(with);  // exit 3 would mean the threads' outputs differ
  expect_same_results(without, with);
}

TEST_F(EndToEnd, DisabledShimPassesEverythingThrough) {
  const auto cap = std::to_string(kTightLimit);
  const ProgramRun without = baseline({"--workspace-limit", cap});
  const ProgramRun with = preloaded({"--workspace-limit", cap},
                                    {{"UCUDNN_DISABLE", "1"}, {"UCUDNN_WORKSPACE_LIMIT", cap}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(micro_batched_calls(with.trace), 0);
  EXPECT_EQ(with.iteration_ms, without.iteration_ms);
}

TEST_F(EndToEnd, BadSettingsWarnOnceAndTheProgramRuns) {
  const ProgramRun without = baseline();
  const ProgramRun with =
      preloaded({}, {{"UCUDNN_WORKSPACE_LIMIT", "12apples"}, {"UCUDNN_BATCH_SIZE_POLICY", "half"}});
  expect_ran_on_doubles(with);
  expect_same_results(without, with);
  EXPECT_EQ(count_of(with.process.err, "UCUDNN_WORKSPACE_LIMIT"), 1) << with.process.err;
  EXPECT_EQ(count_of(with.process.err, "UCUDNN_BATCH_SIZE_POLICY"), 1) << with.process.err;
  EXPECT_NE(with.process.err.find("12apples"), std::string::npos);
}

}  // namespace
}  // namespace ucudnn
