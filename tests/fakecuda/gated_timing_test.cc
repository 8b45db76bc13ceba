// Timing the GPU's work, not the host's issuing of it (cudnn/stream_gate.h). The suite runs with
// the doubles charging the host for each plan execution and legacy call (FAKECUDA_HOST_COST_US,
// CMakeLists.txt), so that, as on a GPU, a run timed with events on an idle stream includes the
// library's host work before its kernel starts. Before the gate, each micro-batch measured that
// much slow, and a plan of m micro-batches was planned (m - 1) issuings slower than it runs: on
// an H200, AlexNet's WR plan at 8 MiB read 8.75 ms planned against 8.20 ms run.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>

#include "core/batch_size_policy.h"
#include "core/engine_name.h"
#include "core/micro_table.h"
#include "core/workspace_reuse.h"
#include "cost_model.h"
#include "cudnn/configuration_timer.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/event_timer.h"
#include "cudnn/measuring_account.h"
#include "cudnn/plan_executor.h"
#include "cudnn/stream_gate.h"
#include "fakecuda_hooks.h"
#include "support/scoped_environment.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::Handle;

// CMakeLists.txt's FAKECUDA_HOST_COST_US, per plan execution and legacy call.
constexpr double kIssueMs = 0.02;

// Event-timed on `stream` from the host's side: the elapsed time between start and stop around
// `issue`, optionally behind a host function queued first.
template <typename Issue>
double elapsed_ms(cudaStream_t stream, bool behind_a_host_function, Issue issue) {
  cudaEvent_t start = nullptr, stop = nullptr;
  EXPECT_EQ(cudaEventCreate(&start), cudaSuccess);
  EXPECT_EQ(cudaEventCreate(&stop), cudaSuccess);
  if (behind_a_host_function) {
    EXPECT_EQ(cudaLaunchHostFunc(
                  stream, [](void*) {}, nullptr),
              cudaSuccess);
  }
  EXPECT_EQ(cudaEventRecord(start, stream), cudaSuccess);
  issue();
  EXPECT_EQ(cudaEventRecord(stop, stream), cudaSuccess);
  EXPECT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  float ms = -1;
  EXPECT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms;
}

// The doubles' timeline, which the tests below rely on: the GPU waits for the host where it has
// nothing queued, not where it is busy, and not behind a host function.
TEST(HostIssuing, AnIdleStreamWaitsForTheHostABusyOneOrAHeldOneDoesNot) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const auto kernel_after_host_work = [&] {
    fakecuda_host_busy(0.25);
    fakecuda_advance_stream(stream, 1.0);
  };
  EXPECT_FLOAT_EQ(elapsed_ms(stream, false, kernel_after_host_work), 1.25f);
  EXPECT_FLOAT_EQ(elapsed_ms(stream, true, kernel_after_host_work), 1.0f);
  // Work queued first keeps the GPU busy while the host issues the timed kernel.
  EXPECT_FLOAT_EQ(elapsed_ms(stream, false,
                             [&] {
                               fakecuda_advance_stream(stream, 2.0);
                               kernel_after_host_work();
                               kernel_after_host_work();
                             }),
                  4.0f);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

cudnn::CudnnBenchmarker benchmarker(const Handle& handle) {
  return cudnn::CudnnBenchmarker(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                 DeviceFingerprint{}, {});
}

KernelKey forward_kernel() {
  return KernelKey{Operation::kForward, make_conv2d_problem({8, 8, 16, 16, 8, 3, 3, 1, 1})};
}

TEST(GatedTiming, AMicroBatchMeasuresTheGpusWorkNotTheHostsIssuingOfIt) {
  ASSERT_NE(std::getenv("FAKECUDA_HOST_COST_US"), nullptr) << "CMakeLists.txt sets it";
  Handle handle;
  auto device = benchmarker(handle);
  const KernelKey kernel = forward_kernel();
  int measured_count = 0;
  for (const auto& name : device.algorithms(kernel)) {
    const auto engine = EngineName::parse(name);
    ASSERT_TRUE(engine) << name;
    const std::int64_t split = split_of(*engine);
    for (const std::int64_t b : {1, 4, 8}) {
      const auto measured = device.benchmark(kernel, name, b);
      const Modeled m = model_engine(kernel.with_batch(b), static_cast<int>(engine->engine), split);
      if (!measured || !m.supported) continue;
      ++measured_count;
      EXPECT_FLOAT_EQ(static_cast<float>(measured->time_ms), static_cast<float>(m.time_ms))
          << name << " at " << b << " (the host's issuing takes " << kIssueMs << " ms)";
    }
  }
  EXPECT_GT(measured_count, 3);
}

// Where the runtime cannot hold the stream, a run is timed as before, and the exit line says how
// many pairs were.
TEST(GatedTiming, WithoutHostFunctionsARunIsTimedWithTheHostsIssuingAndSaidSo) {
  Handle handle;
  cudnn::CudaRuntime runtime = cudnn::cuda_runtime();
  runtime.cudaLaunchHostFunc = {};
  cudnn::CudnnBenchmarker device(cudnn::cudnn_api(), runtime, handle, DeviceFingerprint{}, {});
  const KernelKey kernel = forward_kernel();
  const std::string name = device.algorithms(kernel).front();
  const auto engine = EngineName::parse(name);
  ASSERT_TRUE(engine && engine->knobs.empty()) << name;
  const std::uint64_t before = cudnn::measuring_account().ungated;
  std::optional<Measurement> measured;
  {
    const cudnn::MeasuringTime measuring(kernel.to_string());
    measured = device.benchmark(kernel, name, 4);
  }
  ASSERT_TRUE(measured);
  const Modeled m = model_engine(kernel.with_batch(4), static_cast<int>(engine->engine), 1);
  EXPECT_FLOAT_EQ(static_cast<float>(measured->time_ms), static_cast<float>(m.time_ms + kIssueMs));
  EXPECT_EQ(cudnn::measuring_account().ungated, before + 1);
}

// What the planner adds up is what the plan takes when it runs: its micro-batches issued back to
// back while the GPU works (`time_configuration`, the "run for real" of ucudnn-bench-cudnn).
TEST(GatedTiming, AWrPlansPlannedTimeIsTheTimeItRunsIn) {
  Handle handle;
  auto device = benchmarker(handle);
  const KernelKey kernel = forward_kernel();
  // Of the limits the measurements tell apart, one where the fastest plan divides the batch.
  const MicroTable every =
      measure_micro_table(device, kernel, BatchSizePolicy::kAll, kNoWorkspaceLimit);
  std::optional<Configuration> plan;
  for (const auto& row : every.candidates) {
    for (const auto& candidate : row) {
      auto planned = plan_workspace_reuse(restrict_to_limit(every, candidate.workspace_bytes));
      if (planned && planned->micro.size() >= 2 &&
          (!plan || planned->micro.size() > plan->micro.size()))
        plan = std::move(*planned);
    }
  }
  ASSERT_TRUE(plan) << "no limit divides the batch";
  // Each micro-batch outlasts the host's issuing of the next, so the plan runs back to back.
  for (const auto& micro : plan->micro) ASSERT_GT(micro.time_ms, 2 * kIssueMs);
  const auto run = cudnn::time_configuration(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                             kernel, *plan, 3);
  ASSERT_TRUE(run);
  EXPECT_NEAR(plan->time_ms(), *run, 1e-4 * *run)
      << plan->micro.size() << " micro-batches; issuing one takes " << kIssueMs << " ms";
}

// A library call behind the gate that waits for its own stream would wait for the gate, which
// waits for the call: the gate opens by itself, the repeat is timed again without it, and after
// a few such timeouts every later repeat of the same setting is.
TEST(GatedTiming, WorkThatWaitsForItsOwnStreamIsTimedWithoutTheGate) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const auto& runtime = cudnn::cuda_runtime();
  const auto waits_for_its_stream = [&] {
    fakecuda_host_busy(0.25);
    fakecuda_advance_stream(stream, 1.0);
    return cudaStreamSynchronize(stream) == cudaSuccess;
  };
  cudnn::Gating gating;
  const int allowed = gating.timeouts_left;
  const auto began = std::chrono::steady_clock::now();
  const auto first =
      cudnn::time_with_events(runtime, stream, allowed + 2, waits_for_its_stream, &gating);
  const auto took = std::chrono::steady_clock::now() - began;
  ASSERT_EQ(first.failure, cudnn::EventTimes::Failure::kNone);
  EXPECT_EQ(first.gates_timed_out, allowed);
  EXPECT_EQ(first.ungated, allowed + 2);
  EXPECT_FALSE(gating.enabled);
  ASSERT_EQ(first.sorted_ms.size(), static_cast<std::size_t>(allowed + 2));
  for (double ms : first.sorted_ms) EXPECT_FLOAT_EQ(static_cast<float>(ms), 1.25f);
  EXPECT_LT(took, (allowed + 5) * cudnn::StreamGate::kTimeout) << "a timeout per gate at most";
  const auto later = cudnn::time_with_events(runtime, stream, 2, waits_for_its_stream, &gating);
  EXPECT_EQ(later.gates_timed_out, 0);
  EXPECT_EQ(later.ungated, 2);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// The shim makes a benchmarker per kernel: where the gate keeps timing out (here every plan
// execution waits for its stream), a setting they share turns it off once for all of them.
TEST(GatedTiming, BenchmarkersThatShareASettingTurnTheGateOffOnceForAll) {
  const ucudnn::testing::ScopedEnvironment synchronizing("FAKECUDA_EXECUTE_SYNCHRONIZES", "1");
  Handle handle;
  cudnn::Gating shared;
  const int allowed = shared.timeouts_left;
  cudnn::GpuBenchmarkOptions options;
  options.gating = &shared;
  const KernelKey kernel = forward_kernel();
  const std::uint64_t before = cudnn::measuring_account().gate_timeouts;
  int measured_count = 0;
  for (int kernel_number = 0; kernel_number < 3; ++kernel_number) {
    cudnn::CudnnBenchmarker device(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                   DeviceFingerprint{}, options);
    const cudnn::MeasuringTime measuring(kernel.to_string());
    for (const auto& name : device.algorithms(kernel)) {
      const auto engine = EngineName::parse(name);
      ASSERT_TRUE(engine) << name;
      const auto measured = device.benchmark(kernel, name, 4);
      const Modeled m =
          model_engine(kernel.with_batch(4), static_cast<int>(engine->engine), split_of(*engine));
      if (!measured || !m.supported) continue;
      ++measured_count;
      EXPECT_FLOAT_EQ(static_cast<float>(measured->time_ms),
                      static_cast<float>(m.time_ms + kIssueMs))
          << name << ": timed without the gate, the host's issuing in it";
    }
  }
  EXPECT_GT(measured_count, allowed);
  EXPECT_FALSE(shared.enabled);
  EXPECT_EQ(cudnn::measuring_account().gate_timeouts, before + allowed);
}

// A plan's timer follows the setting it is given: the shim passes the device's to its comparisons
// of an application's plans, which an autotuning framework has by the hundred.
TEST(GatedTiming, APlanTimerFollowsTheSettingItIsGiven) {
  Handle handle;
  auto device = benchmarker(handle);
  const KernelKey kernel = forward_kernel();
  const std::int64_t batch = kernel.problem.batch();
  const std::string name = device.algorithms(kernel).front();
  const auto measured = device.benchmark(kernel, name, batch);
  ASSERT_TRUE(measured) << name;
  const cudnn::PlanExecutor plan(
      cudnn::cudnn_api(), handle, kernel,
      Configuration{{{"cudnn", name, batch, measured->time_ms, measured->workspace_bytes}}});
  cudnn::Gating off{false};
  const auto gated = cudnn::time_plan(cudnn::cuda_runtime(), cudnn::cudnn_api(), handle, plan, 3);
  const auto ungated =
      cudnn::time_plan(cudnn::cuda_runtime(), cudnn::cudnn_api(), handle, plan, 3, &off);
  ASSERT_TRUE(gated && ungated);
  EXPECT_FLOAT_EQ(static_cast<float>(gated->gpu_ms), static_cast<float>(measured->time_ms));
  EXPECT_FLOAT_EQ(static_cast<float>(ungated->gpu_ms),
                  static_cast<float>(measured->time_ms + kIssueMs));
}

// A run that fails behind the gate leaves the stream open at once: the work queued after it runs
// without waiting for the timeout.
TEST(GatedTiming, ARunThatFailsBehindTheGateLeavesTheStreamOpen) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  const auto began = std::chrono::steady_clock::now();
  const auto failed =
      cudnn::time_with_events(cudnn::cuda_runtime(), stream, 3, [] { return false; });
  EXPECT_EQ(failed.failure, cudnn::EventTimes::Failure::kRunFailed);
  fakecuda_advance_stream(stream, 1.0);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_LT(std::chrono::steady_clock::now() - began, cudnn::StreamGate::kTimeout / 2);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// A gate queued on a capturing stream would become a node of the application's graph.
TEST(GatedTiming, ACapturingStreamIsNeverHeld) {
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  {
    const cudnn::StreamGate gate(cudnn::cuda_runtime(), stream);
    EXPECT_FALSE(gate.holding());
  }
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << "the capture stays valid";
  cudaGraphDestroy(graph);
  const cudnn::StreamGate after(cudnn::cuda_runtime(), stream);
  EXPECT_TRUE(after.holding()) << "held again once the capture ended";
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

}  // namespace
}  // namespace ucudnn::fakecuda
