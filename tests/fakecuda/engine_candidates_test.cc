// The cuDNN adapter's engine path against the doubles' graph API: which engine
// configurations are candidates (the heuristics' results, each once, those the kernel's
// numerics allow), what measuring one at a micro-batch gives (the double's model, with the
// workspace it needs at that shape), and that a plan of engine micro-batches computes what the
// undivided legacy call computes, for every operation, random layouts and scaling factors.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "core/engine_name.h"
#include "cost_model.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/finalized_plans.h"
#include "cudnn/plan_executor.h"
#include "fakecuda_hooks.h"
#include "support/relative_error.h"
#include "support/scoped_environment.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::DeviceBuffer;
using testing::Handle;

cudnn::CudnnBenchmarker benchmarker(const Handle& handle, bool deterministic_only = false) {
  cudnn::GpuBenchmarkOptions options;
  options.deterministic_only = deterministic_only;
  return cudnn::CudnnBenchmarker(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                 DeviceFingerprint{}, options);
}

KernelKey kernel_of(Operation operation, MathType math) {
  KernelKey kernel{operation, make_conv2d_problem({8, 8, 16, 16, 8, 3, 3, 1, 1})};
  kernel.problem.math_type = math;
  return kernel;
}

std::string engine_of(Operation operation, const char* algorithm) {
  for (int a = 0; a < algorithm_count(operation); ++a)
    if (std::string(algorithm_model(operation, a)->name) == algorithm)
      return "eng" + std::to_string(a);
  return "none";
}

TEST(EngineCandidates, AreTheHeuristicsConfigurationsTheNumericsAllowEachOnce) {
  Handle handle;
  auto device = benchmarker(handle);
  const auto tensor_op = device.algorithms(kernel_of(Operation::kForward, MathType::kTensorOp));
  const auto fma = device.algorithms(kernel_of(Operation::kForward, MathType::kFma));
  ASSERT_GE(tensor_op.size(), 3u);
  for (const auto& name : tensor_op) EXPECT_TRUE(is_engine_name(name)) << name;
  EXPECT_EQ(std::set<std::string>(tensor_op.begin(), tensor_op.end()).size(), tensor_op.size())
      << "modes A, B and the fallback list overlap: each configuration once";
  // The double's non-fused Winograd engine carries the TENSOR_CORE note.
  const std::string winograd = engine_of(Operation::kForward, "WINOGRAD_NONFUSED");
  EXPECT_NE(std::find(tensor_op.begin(), tensor_op.end(), winograd), tensor_op.end());
  EXPECT_EQ(std::find(fma.begin(), fma.end(), winograd), fma.end())
      << "FMA math: no tensor-core engine";
  EXPECT_EQ(fma.size() + 1, tensor_op.size());

  const auto data = kernel_of(Operation::kBackwardData, MathType::kTensorOp);
  const std::string nondeterministic = engine_of(Operation::kBackwardData, "ALGO_0");
  const auto any = device.algorithms(data);
  EXPECT_NE(std::find(any.begin(), any.end(), nondeterministic), any.end());
  auto strict = benchmarker(handle, true);
  const auto deterministic = strict.algorithms(data);
  EXPECT_EQ(std::find(deterministic.begin(), deterministic.end(), nondeterministic),
            deterministic.end());

  cudnn::GpuBenchmarkOptions legacy;
  legacy.engines = false;
  cudnn::CudnnBenchmarker algorithms(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                     DeviceFingerprint{}, legacy);
  const auto names = algorithms.algorithms(data);
  EXPECT_NE(std::find(names.begin(), names.end(), "FFT_TILING"), names.end());
}

TEST(EngineCandidates, AMeasurementIsTheModelsAtThatMicroBatchWithItsWorkspace) {
  Handle handle;
  auto device = benchmarker(handle);
  for (const auto operation :
       {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
    const KernelKey kernel = kernel_of(operation, MathType::kTensorOp);
    int grows = 0;
    for (const auto& name : device.algorithms(kernel)) {
      const auto engine = EngineName::parse(name);
      ASSERT_TRUE(engine) << name;
      const int algorithm = static_cast<int>(engine->engine);
      const std::int64_t split = split_of(*engine);
      std::uint64_t previous = 0;
      for (const std::int64_t b : {1, 2, 4, 8}) {
        const auto measured = device.benchmark(kernel, name, b);
        const Modeled m = model_engine(kernel.with_batch(b), algorithm, split);
        ASSERT_EQ(measured.has_value(), m.supported) << name << " at " << b;
        if (!measured) continue;
        EXPECT_EQ(measured->workspace_bytes, m.workspace_bytes) << name << " at " << b;
        EXPECT_FLOAT_EQ(static_cast<float>(measured->time_ms), static_cast<float>(m.time_ms))
            << name << " at " << b;
        grows += measured->workspace_bytes > previous && previous > 0;
        previous = measured->workspace_bytes;
      }
    }
    EXPECT_GT(grows, 0) << "some engine's workspace should grow with the micro-batch";
  }
}

// A BackwardFilter plan's micro-batches after the first add to dw (beta = 1). Measured only as
// the first one runs (beta = 0), a configuration cuDNN cannot finalize with beta = 1 was planned
// and then refused at run time (on the H200, one of AlexNet's plans at 8 MiB did not run).
TEST(EngineCandidates, BelowTheBatchABackwardFilterConfigurationIsOneThatAccumulates) {
  const ucudnn::testing::ScopedEnvironment refusing("FAKECUDA_SPLIT_K_WITHOUT_BETA", "1");
  Handle handle;
  auto device = benchmarker(handle);
  const KernelKey kernel = kernel_of(Operation::kBackwardFilter, MathType::kTensorOp);
  const std::int64_t batch = kernel.problem.batch();
  int split_engines = 0;
  for (const auto& name : device.algorithms(kernel)) {
    const auto engine = EngineName::parse(name);
    ASSERT_TRUE(engine) << name;
    const std::int64_t split = split_of(*engine);
    if (split == 1) continue;
    ++split_engines;
    EXPECT_TRUE(device.benchmark(kernel, name, batch)) << name << ": undivided, beta = 0 only";
    EXPECT_FALSE(device.benchmark(kernel, name, batch / 2))
        << name << " cannot add a second micro-batch to dw";
    // And a plan of it below the batch is refused when it is made, not when it runs.
    const Configuration plan{
        {{"cudnn", name, batch / 2, 0, 0}, {"cudnn", name, batch - batch / 2, 0, 0}}};
    EXPECT_THROW(cudnn::PlanExecutor(cudnn::cudnn_api(), handle, kernel, plan),
                 std::invalid_argument)
        << name;
  }
  EXPECT_GT(split_engines, 0) << "the double's heuristics offer split-K BackwardFilter engines";
  // Forward's micro-batches write their own slices of y (beta = 0): split-K stays a candidate.
  const KernelKey forward = kernel_of(Operation::kForward, MathType::kTensorOp);
  int forward_split = 0;
  for (const auto& name : device.algorithms(forward))
    if (name.find("k12=2") != std::string::npos || name.find("k12=4") != std::string::npos)
      forward_split += device.benchmark(forward, name, batch / 2).has_value();
  EXPECT_GT(forward_split, 0);
}

// Measuring is mostly running the slow candidates: beside a faster one measured at the same
// kernel and micro-batch, a candidate over hopeless_factor times the fastest stops at its warm-up
// run, one over slow_factor at its first timed run; the double's virtual clock counts the runs.
TEST(EngineCandidates, ACandidateFarSlowerThanTheFastestAtItsShapeStopsEarly) {
  Handle handle;
  const KernelKey kernel = kernel_of(Operation::kForward, MathType::kTensorOp);
  const std::int64_t batch = kernel.problem.batch();
  auto probe = benchmarker(handle);
  std::map<std::string, Measurement> all;
  for (const auto& name : probe.algorithms(kernel))
    if (const auto m = probe.benchmark(kernel, name, batch)) all[name] = *m;
  std::string fast, slow, lean;
  for (const auto& [name, m] : all)
    if (fast.empty() || m.time_ms < all[fast].time_ms) fast = name;
  const double fast_ms = all[fast].time_ms;
  for (const auto& [name, m] : all) {
    // Slower with at least the fast one's workspace: dominated, may stop early. Slower with
    // less: a tight limit's choice, never.
    std::string& which = m.workspace_bytes >= all[fast].workspace_bytes ? slow : lean;
    if (name != fast && (which.empty() || m.time_ms > all[which].time_ms)) which = name;
  }
  ASSERT_FALSE(slow.empty());
  ASSERT_FALSE(lean.empty()) << "the double offers a slower candidate with less workspace";
  const double slow_ms = all[slow].time_ms;
  const double ratio = slow_ms / fast_ms;
  ASSERT_GT(ratio, 1.5) << "the double offers candidates of different speeds";
  // The runs `options` give a candidate after the fast one (or alone), and its repeats.
  auto runs_of = [&](const std::string& measured, cudnn::GpuBenchmarkOptions options,
                     bool fast_first) {
    cudnn::CudnnBenchmarker device(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                   DeviceFingerprint{}, options);
    if (fast_first) {
      EXPECT_TRUE(device.benchmark(kernel, fast, batch));
    }
    double before = 0, after = 0;
    EXPECT_EQ(fakecuda_stream_time(handle.stream(), &before), cudaSuccess);
    const auto m = device.benchmark(kernel, measured, batch);
    EXPECT_EQ(fakecuda_stream_time(handle.stream(), &after), cudaSuccess);
    EXPECT_TRUE(m);
    const double ms = all[measured].time_ms;
    EXPECT_FLOAT_EQ(static_cast<float>(m ? m->time_ms : 0), static_cast<float>(ms));
    return std::make_pair(static_cast<int>(std::lround((after - before) / ms)), m ? m->repeats : 0);
  };
  auto runs = [&](cudnn::GpuBenchmarkOptions options, bool fast_first) {
    return runs_of(slow, options, fast_first);
  };
  cudnn::GpuBenchmarkOptions hopeless;
  hopeless.early_stop.hopeless_factor = ratio / 2;
  hopeless.early_stop.hopeless_margin_ms = 0;
  EXPECT_EQ(runs(hopeless, true), std::make_pair(1, 1)) << "stopped at the warm-up run";
  hopeless.early_stop.hopeless_margin_ms = slow_ms;  // no first run's cost explains less
  hopeless.early_stop.slow_factor = ratio * 2;
  EXPECT_EQ(runs(hopeless, true), std::make_pair(4, 3)) << "within the margin: every run";
  cudnn::GpuBenchmarkOptions slow_only;
  slow_only.early_stop.hopeless_factor = ratio * 2;
  slow_only.early_stop.slow_factor = ratio / 2;
  EXPECT_EQ(runs(slow_only, true), std::make_pair(2, 1)) << "stopped at the first timed run";
  EXPECT_EQ(runs(slow_only, false), std::make_pair(4, 3)) << "nothing measured before it";
  cudnn::GpuBenchmarkOptions off = slow_only;
  off.early_stop.slow_factor = 0;
  EXPECT_EQ(runs(off, true), std::make_pair(4, 3)) << "slow_factor 0: every run";
  // One that needs less workspace than the fast one is no slower than it at a tight limit: the
  // slow rule never stops it. The hopeless one does, after one timed run (a tighter limit's plan
  // reads its time), where the fast one is within the limit it is measured under (a limit below
  // the fast one's workspace measures the fast one not at all).
  EXPECT_GT(all[lean].time_ms, 1.01 * fast_ms);
  cudnn::GpuBenchmarkOptions eager;
  eager.early_stop.hopeless_factor = all[lean].time_ms / fast_ms * 2;
  eager.early_stop.slow_factor = 1.01;
  EXPECT_EQ(runs_of(lean, eager, true), std::make_pair(4, 3)) << lean << " beside " << fast;
  eager.early_stop.hopeless_factor = 1.01;
  eager.early_stop.hopeless_margin_ms = 0;
  EXPECT_EQ(runs_of(lean, eager, true), std::make_pair(2, 1)) << lean << " beside " << fast;
  eager.workspace_limit = all[lean].workspace_bytes;
  {
    cudnn::CudnnBenchmarker limited(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                    DeviceFingerprint{}, eager);
    EXPECT_THROW(limited.benchmark(kernel, fast, batch), WorkspaceOverLimit);
    const auto m = limited.benchmark(kernel, lean, batch);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->repeats, 3) << "nothing within the limit measured before it";
  }
  // Another micro-batch's fastest is no bound at this one.
  cudnn::CudnnBenchmarker device(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                 DeviceFingerprint{}, slow_only);
  EXPECT_TRUE(device.benchmark(kernel, fast, batch / 2));
  const auto m = device.benchmark(kernel, slow, batch);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->repeats, 3);
}

// Measuring keeps the execution plans its executor will run (finalized once), but only those a
// limit can choose: at each shape, the candidates no other is as fast as with no more
// workspace. A plan for every candidate measured would hold a runtime-compiled engine's
// kernels in device memory for each of them.
TEST(EngineCandidates, MeasuringKeepsThePlansOfTheCandidatesNoneBeats) {
  Handle handle;
  for (const auto operation : {Operation::kForward, Operation::kBackwardFilter}) {
    const KernelKey kernel = kernel_of(operation, MathType::kTensorOp);
    cudnn::FinalizedPlans kept;
    cudnn::GpuBenchmarkOptions options;
    options.kept_plans = &kept;
    options.early_stop.slow_factor = 0;  // every candidate measured whole
    cudnn::CudnnBenchmarker device(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                   DeviceFingerprint{}, options);
    for (const std::int64_t b : {kernel.problem.batch(), kernel.problem.batch() / 2}) {
      std::map<std::string, Measurement> measured;
      for (const auto& name : device.algorithms(kernel))
        if (const auto m = device.benchmark(kernel, name, b)) measured[name] = *m;
      ASSERT_GE(measured.size(), 3u);
      const KernelKey shape = kernel.with_batch(b);
      int on_front = 0, beaten = 0;
      for (const auto& [name, m] : measured) {
        bool is_beaten = false;
        for (const auto& [other, o] : measured)
          is_beaten |= o.time_ms <= m.time_ms && o.workspace_bytes <= m.workspace_bytes &&
                       (o.time_ms < m.time_ms || o.workspace_bytes < m.workspace_bytes);
        const auto engine = EngineName::parse(name);
        ASSERT_TRUE(engine);
        const bool kept_plan = kept.find(shape, *engine, 1, 0) != nullptr;
        EXPECT_EQ(kept_plan, !is_beaten)
            << name << " at " << b << ": " << m.time_ms << " ms, " << m.workspace_bytes << " B";
        // Below the batch, BackwardFilter's later micro-batches accumulate: kept beside it.
        const bool accumulates =
            operation == Operation::kBackwardFilter && b < kernel.problem.batch();
        EXPECT_EQ(kept.find(shape, *engine, 1, 1) != nullptr, kept_plan && accumulates) << name;
        (is_beaten ? beaten : on_front) += 1;
      }
      EXPECT_GT(on_front, 0);
      EXPECT_GT(beaten, 0) << "the double offers candidates another beats";
    }
  }
}

TEST(EngineCandidates, TheApplicationsConfigurationsJoinUnderTheSameNumericsRule) {
  Handle handle;
  const KernelKey kernel = kernel_of(Operation::kForward, MathType::kFma);
  const auto offered = benchmarker(handle).algorithms(kernel);
  // The heuristics name the knob engine with its knobs; an application that built it without
  // choosing any runs a configuration of another name, which cuDNN still finalizes.
  const std::string gemm = engine_of(Operation::kForward, "IMPLICIT_PRECOMP_GEMM");
  ASSERT_EQ(std::find(offered.begin(), offered.end(), gemm), offered.end());
  const std::string winograd = engine_of(Operation::kForward, "WINOGRAD_NONFUSED");
  const cudnn::EngineConfiguration plain{*EngineName::parse(gemm), {}, 0};
  const cudnn::EngineConfiguration offered_again{*EngineName::parse(offered.front()), {}, 0};
  cudnn::EngineConfiguration tensor_core{*EngineName::parse(winograd), {}, 0};
  tensor_core.notes.tensor_core = true;
  // The knob engine with its tile knob alone: another name again.
  const std::string tiled = gemm + "{k" + std::to_string(kTileKnob) + "=0}";
  cudnn::EngineConfiguration nondeterministic{*EngineName::parse(tiled), {}, 0};
  nondeterministic.notes.nondeterministic = true;

  cudnn::GpuBenchmarkOptions options;
  options.application_engines = {plain, offered_again, tensor_core, nondeterministic};
  cudnn::CudnnBenchmarker device(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                 DeviceFingerprint{}, options);
  auto names = device.algorithms(kernel);
  // After the heuristics' own, each once; FMA math keeps the tensor-core one out.
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + offered.size()), offered);
  EXPECT_EQ(std::count(names.begin(), names.end(), gemm), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), offered.front()), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), winograd), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), tiled), 1);
  EXPECT_EQ(names.size(), offered.size() + 2);
  // Measured like any configuration: the engine with its knobs' defaults.
  const auto measured = device.benchmark(kernel, gemm, 4);
  const Modeled m = model_engine(kernel.with_batch(4), 1, 1);
  ASSERT_TRUE(measured);
  EXPECT_EQ(measured->workspace_bytes, m.workspace_bytes);

  options.deterministic_only = true;
  cudnn::CudnnBenchmarker strict(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                 DeviceFingerprint{}, options);
  names = strict.algorithms(kernel);
  EXPECT_EQ(std::count(names.begin(), names.end(), tiled), 0) << "nondeterministic";
  EXPECT_EQ(std::count(names.begin(), names.end(), gemm), 1);
}

std::vector<float> random_floats(std::size_t count, std::mt19937_64& engine) {
  std::uniform_real_distribution<float> value(-1, 1);
  std::vector<float> v(count);
  for (auto& x : v) x = value(engine);
  return v;
}

// The legacy call of the double, undivided, with its algorithm 0 (no workspace).
cudnnStatus_t legacy_call(const Handle& handle, Operation operation, const testing::Descriptors& d,
                          const float* alpha, const float* beta, void* x, void* w, void* y) {
  switch (operation) {
    case Operation::kForward:
      return cudnnConvolutionForward(handle, alpha, d.x, x, d.w, w, d.conv,
                                     CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, beta,
                                     d.y, y);
    case Operation::kBackwardData:
      return cudnnConvolutionBackwardData(handle, alpha, d.w, w, d.y, y, d.conv,
                                          CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, beta, d.x,
                                          x);
    case Operation::kBackwardFilter:
      return cudnnConvolutionBackwardFilter(handle, alpha, d.x, x, d.y, y, d.conv,
                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, nullptr, 0, beta,
                                            d.w, w);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

TEST(EngineCandidates, APlanOfEngineMicroBatchesComputesTheUndividedResult) {
  ucudnn::testing::SeededRandom random;
  Handle handle;
  auto device = benchmarker(handle);
  int planned = 0;
  for (int round = 0; round < 40; ++round) {
    ConvolutionProblem p = testing::random_problem(random);
    if (p.data_type != DataType::kFloat || p.batch() < 2) continue;
    const auto operation = static_cast<Operation>(round % 3);
    const KernelKey kernel{operation, p};
    const std::int64_t first = p.batch() / 2, second = p.batch() - first;
    // An engine that runs at both shapes; the first such one the heuristics offer.
    std::string name;
    for (const auto& candidate : device.algorithms(kernel))
      if (device.benchmark(kernel, candidate, first) &&
          device.benchmark(kernel, candidate, second)) {
        name = candidate;
        break;
      }
    ASSERT_FALSE(name.empty()) << kernel.to_string();
    Configuration plan{{{"cudnn", name, first, 0, 0}, {"cudnn", name, second, 0, 0}}};
    const cudnn::PlanExecutor executor(cudnn::cudnn_api(), handle, kernel, plan);
    const float alpha = random.chance(0.5) ? 1.0f : 0.75f;
    const float beta = random.chance(0.5) ? 0.0f : 0.5f;  // 0.5: plans made on first use
    const std::size_t counts[] = {static_cast<std::size_t>(testing::span_elements(p.x)),
                                  static_cast<std::size_t>(testing::span_elements(p.w)),
                                  static_cast<std::size_t>(testing::span_elements(p.y))};
    std::vector<std::vector<float>> start;
    for (auto n : counts) start.push_back(random_floats(n, random.engine()));
    auto run = [&](bool planned_run) {
      DeviceBuffer x(counts[0] * 4), w(counts[1] * 4), y(counts[2] * 4);
      DeviceBuffer workspace(std::max<std::uint64_t>(executor.workspace_bytes(), 1));
      const DeviceBuffer* buffers[] = {&x, &w, &y};
      for (int t = 0; t < 3; ++t)
        EXPECT_EQ(cudaMemcpy(buffers[t]->get(), start[t].data(), counts[t] * 4, cudaMemcpyDefault),
                  cudaSuccess);
      if (planned_run) {
        EXPECT_EQ(executor
                      .run(handle, &alpha, {x.get(), w.get(), y.get()}, workspace.get(),
                           workspace.bytes(), &beta)
                      .status,
                  CUDNN_STATUS_SUCCESS)
            << name;
      } else {
        const testing::Descriptors d(p);
        EXPECT_EQ(legacy_call(handle, operation, d, &alpha, &beta, x.get(), w.get(), y.get()),
                  CUDNN_STATUS_SUCCESS);
      }
      EXPECT_EQ(cudaStreamSynchronize(handle.stream()), cudaSuccess);
      const int out = operation == Operation::kForward        ? 2
                      : operation == Operation::kBackwardData ? 0
                                                              : 1;
      std::vector<float> result(counts[out]);
      EXPECT_EQ(cudaMemcpy(result.data(), buffers[out]->get(), counts[out] * 4, cudaMemcpyDefault),
                cudaSuccess);
      return result;
    };
    const auto expected = run(false);
    const auto got = run(true);
    EXPECT_LT(ucudnn::testing::relative_error(got, expected), 1e-5)
        << kernel.to_string() << " with " << name << " alpha " << alpha << " beta " << beta;
    ++planned;
  }
  EXPECT_GT(planned, 0);
}

}  // namespace
}  // namespace ucudnn::fakecuda
