// The shim is invisible except for speed: a legacy-API program on the cuDNN/CUDA test
// doubles (LD_PRELOAD at the shim, CTest sets it) with every convolution, allocation, free
// and synchronization below the shim counted through the doubles' trace. Planning happens at
// most once per kernel and limit, failures included; it never holds more workspace than the
// limit; nothing is planned, allocated or synchronized while a CUDA graph is captured; and the
// fused convolution works with the virtual algorithm.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "device_harness.h"
#include "legacy_layers.h"
#include "support/random_seed.h"
#include "support/subprocess.h"
#include "ucudnn/runtime_call_counts.h"

namespace {

using namespace ucudnn::testing;

class NeverHarms : public LegacyLayers {};

// The shim's own account of its CUDA calls (ucudnnGetRuntimeCallCounts), from the preload.
struct ShimCallCounts {
  UcudnnRuntimeCallCounts measuring{}, other{};
};

ShimCallCounts shim_call_counts() {
  using Get = cudnnStatus_t(UcudnnRuntimeCallCounts*, UcudnnRuntimeCallCounts*);
  static auto* get = reinterpret_cast<Get*>(dlsym(RTLD_DEFAULT, "ucudnnGetRuntimeCallCounts"));
  ShimCallCounts counts;
  EXPECT_NE(get, nullptr) << "the preload exports ucudnnGetRuntimeCallCounts";
  if (get) {
    EXPECT_EQ(get(&counts.measuring, &counts.other), CUDNN_STATUS_SUCCESS);
  }
  return counts;
}

// What the shim says it did between two readings equals what the doubles saw (its account
// counts device and pinned host memory together).
void expect_account(const UcudnnRuntimeCallCounts& before, const UcudnnRuntimeCallCounts& after,
                    const TraceCounts& seen, const char* span) {
  EXPECT_EQ(after.allocations - before.allocations,
            static_cast<unsigned long long>(seen.allocations + seen.failed_allocations +
                                            seen.host_allocations))
      << span;
  EXPECT_EQ(after.frees - before.frees,
            static_cast<unsigned long long>(seen.frees + seen.host_frees))
      << span;
  EXPECT_EQ(after.synchronizations - before.synchronizations,
            static_cast<unsigned long long>(seen.synchronizations))
      << span;
}

// Four Get_v7 calls (two kernels) plan each kernel once with one workspace per kernel; a
// second round, GetWorkspaceSize and the steady-state convolutions cause nothing below the shim.
TEST_F(NeverHarms, GetPlansEachKernelOnceAndSteadyStateCausesNothing) {
  add_network(16);
  const std::size_t start = trace_size();
  const ShimCallCounts before_planning = shim_call_counts();
  std::vector<cudnnConvolutionFwdAlgoPerf_t> chosen(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) check(get_v7(layers[i], &chosen[i]), "Get_v7");
  const TraceCounts planning = count_trace(start);
  const ShimCallCounts after_planning = shim_call_counts();
  // Every call below the shim was the planner's measuring, and the shim counted each.
  EXPECT_GT(planning.allocations, 0);
  expect_account(before_planning.measuring, after_planning.measuring, planning, "planning");
  expect_account(before_planning.other, after_planning.other, TraceCounts{}, "planning, other");
  std::printf("first Get_v7 round: %d convolutions, %d cudaMalloc, %d cudaFree, %d syncs\n",
              planning.convolutions, planning.allocations, planning.frees,
              planning.synchronizations);
  // Per kernel: x, w, y scratch and one workspace.
  EXPECT_LE(planning.allocations, 2 * 4);
  EXPECT_LE(planning.frees, 2 * 4);
  EXPECT_EQ(planning.failed_allocations, 0);

  const std::size_t steady = trace_size();
  std::vector<void*> workspaces;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    cudnnConvolutionFwdAlgoPerf_t again{};
    check(get_v7(layers[i], &again), "second Get_v7");
    EXPECT_EQ(again.algo, chosen[i].algo);
    std::size_t bytes = 0;
    check(cudnnGetConvolutionForwardWorkspaceSize(handle, layers[i].x, layers[i].w, layers[i].conv,
                                                  layers[i].y, chosen[i].algo, &bytes),
          "GetWorkspaceSize");
    EXPECT_EQ(bytes, chosen[i].memory);
    workspaces.push_back(bytes ? device(bytes / sizeof(float) + 1) : nullptr);
  }
  const std::size_t iterations = trace_size();
  for (int iteration = 0; iteration < 3; ++iteration)
    for (std::size_t i = 0; i < layers.size(); ++i)
      check(forward(layers[i], chosen[i].algo, workspaces[i], chosen[i].memory), "forward");
  const TraceCounts queries = count_trace(steady);
  const TraceCounts runs = count_trace(iterations);
  const ShimCallCounts after_runs = shim_call_counts();
  expect_account(after_planning.measuring, after_runs.measuring, TraceCounts{}, "steady state");
  expect_account(after_planning.other, after_runs.other, TraceCounts{}, "steady state, other");
  EXPECT_EQ(queries.allocations - int(workspaces.size()) +
                int(std::count(workspaces.begin(), workspaces.end(), nullptr)),
            0);
  EXPECT_EQ(runs.allocations, 0);
  EXPECT_EQ(runs.frees, 0);
  EXPECT_EQ(runs.synchronizations, 0);
  EXPECT_GE(runs.convolutions, 3 * int(layers.size()));
}

// A kernel that gets no plan (memory short) is remembered: later calls pass through without
// planning again, until the next Find, and without asking cuDNN's heuristics again.
TEST_F(NeverHarms, AKernelWithoutAPlanIsNotPlannedAtEveryCall) {
  Layer& l = add_layer(16, 24, 24, 3, 1);
  // Hold the device's memory but a little, as a framework's caching allocator does.
  std::size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  ASSERT_GT(free, 16u << 10);
  void* held = nullptr;
  ASSERT_EQ(cudaMalloc(&held, free - (16 << 10)), cudaSuccess);
  const std::size_t first = trace_size();
  check(forward(l, kVirtualForward, nullptr, 0), "first call");
  const TraceCounts planning = count_trace(first);
  const std::size_t later = trace_size();
  for (int i = 0; i < 8; ++i) check(forward(l, kVirtualForward, nullptr, 0), "later call");
  const TraceCounts calls = count_trace(later);
  std::printf("first call: %d + %d failed cudaMalloc; 8 later calls: %d + %d failed\n",
              planning.allocations, planning.failed_allocations, calls.allocations,
              calls.failed_allocations);
  EXPECT_EQ(calls.allocations + calls.failed_allocations, 0);
  EXPECT_EQ(calls.frees, 0);
  EXPECT_EQ(calls.host_allocations + calls.host_frees, 0);
  EXPECT_EQ(calls.convolutions, 8);  // passed through undivided
  EXPECT_GT(planning.failed_allocations, 0) << "the first call should have tried to plan";
  // Nor asks cuDNN's heuristics again: the undivided algorithm chosen at the first call runs.
  int selections = 0;
  for (const auto& line : trace_lines(later)) selections += line.rfind("select ", 0) == 0;
  EXPECT_EQ(selections, 0) << "later calls asked cuDNN's heuristics";
  cudaFree(held);
}

// One process of PlansMadeShortOfMemoryAreStoredNever: plans one kernel with the virtual
// algorithm, holding all of the device but NEVER_HARMS_LEAVE_FREE bytes when that is set.
TEST_F(NeverHarms, OneProcessOfTheStoredPlanScenario) {
  const char* leave_free = std::getenv("NEVER_HARMS_LEAVE_FREE");
  if (!std::getenv("NEVER_HARMS_CHILD"))
    GTEST_SKIP() << "a child process of PlansMadeShortOfMemoryAreStoredNever";
  Layer& l = add_layer(16, 32, 32, 3, 1);
  const std::size_t given = 1 << 20;
  void* workspace = device(given / sizeof(float));
  void* held = nullptr;
  if (leave_free) {
    std::size_t free = 0, total = 0;
    ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    const std::size_t keep = std::strtoull(leave_free, nullptr, 10);
    ASSERT_GT(free, keep);
    ASSERT_EQ(cudaMalloc(&held, free - keep), cudaSuccess);
  }
  check(forward(l, kVirtualForward, workspace, given), "forward with the virtual algorithm");
  if (held) cudaFree(held);
}

// A plan made while the application held most of the device (some measurements could not
// allocate) runs in that process but is not stored: the next process, with the memory free,
// measures what was missing and plans the faster division; only that complete plan is stored.
TEST_F(NeverHarms, PlansMadeShortOfMemoryAreStoredNever) {
  if (std::getenv("NEVER_HARMS_CHILD")) GTEST_SKIP() << "the parent of the scenario";
  char database[] = "/tmp/ucudnn-never-harms-XXXXXX";
  const int fd = mkstemp(database);
  ASSERT_GE(fd, 0);
  close(fd);
  std::remove(database);
  const std::string trace = std::string(database) + ".trace";
  struct Run {
    std::string log, plan;
    double ms = 0;
    int benchmarked = 0;
  };
  auto run = [&](std::optional<std::string> leave_free) {
    const auto result = run_process(
        {"/proc/self/exe", "--gtest_filter=NeverHarms.OneProcessOfTheStoredPlanScenario"},
        {{"NEVER_HARMS_CHILD", "1"},
         {"NEVER_HARMS_LEAVE_FREE", leave_free},
         {"UCUDNN_DATABASE", database},
         {"UCUDNN_LOG_LEVEL", "info"},
         {"FAKECUDA_TRACE", trace}});
    EXPECT_EQ(result.status, 0) << result.out << result.err;
    Run r;
    r.log = result.err;
    std::smatch m;
    if (std::regex_search(result.err, m, std::regex("plan within [^:]*: (.*) \\(([0-9.]+) ms")))
      r.plan = m[1], r.ms = std::stod(m[2]);
    if (std::regex_search(result.err, m, std::regex("benchmarked ([0-9]+) ")))
      r.benchmarked = std::stoi(m[1]);
    return r;
  };
  // The layer's scratch tensors take 1 MiB at the full batch, a micro-batch's its share: 0.5 MiB
  // free leaves room for the smaller micro-batches' tensors and workspaces only.
  const Run held = run(std::to_string(512 << 10));
  const Run freed = run(std::nullopt);
  const Run again = run(std::nullopt);
  std::remove(database);
  std::remove(trace.c_str());
  std::printf("memory held: %s (%.6f ms); memory free: %s (%.6f ms), %d pairs benchmarked\n",
              held.plan.c_str(), held.ms, freed.plan.c_str(), freed.ms, freed.benchmarked);
  ASSERT_FALSE(held.plan.empty()) << held.log;
  ASSERT_FALSE(freed.plan.empty()) << freed.log;
  EXPECT_GT(held.benchmarked, 0) << held.log;
  EXPECT_GT(freed.benchmarked, 0) << "the incomplete plan was stored and reused\n" << freed.log;
  EXPECT_LT(freed.ms, held.ms) << "with the memory free, a faster plan exists";
  EXPECT_EQ(again.benchmarked, 0) << "the complete plan is stored\n" << again.log;
  EXPECT_EQ(again.plan, freed.plan);
}

// Find*Ex benchmarks in the caller's buffers and workspace: it allocates nothing, and no
// algorithm needing more than the caller's workspace is run.
TEST_F(NeverHarms, FindExMeasuresInTheCallersBuffersWithinItsWorkspace) {
  add_network(12);
  const std::size_t given = 64 << 10;
  void* workspace = device(given / sizeof(float));
  const std::size_t start = trace_size();
  for (auto& l : layers) {
    cudnnConvolutionFwdAlgoPerf_t best[4];
    int returned = 0;
    check(cudnnFindConvolutionForwardAlgorithmEx(handle, l.x, l.x_data, l.w, l.w_data, l.conv, l.y,
                                                 l.y_data, 4, &returned, best, workspace, given),
          "FindEx");
    EXPECT_EQ(best[0].algo, kVirtualForward);
    EXPECT_LE(best[0].memory, given);
  }
  const TraceCounts counts = count_trace(start);
  std::printf("FindEx with a %zu-byte workspace: %d cudaMalloc, %d cudaFree\n", given,
              counts.allocations, counts.frees);
  EXPECT_GT(counts.convolutions, 0) << "the kernels were new: Find*Ex must have measured";
  EXPECT_EQ(counts.allocations, 0);
  EXPECT_EQ(counts.frees, 0);
  EXPECT_EQ(counts.host_allocations + counts.host_frees, 0);
  for (const auto& line : trace_lines(start)) {
    unsigned long long needed = 0;
    const auto at = line.find(" needed=");
    if (line.rfind("conv ", 0) == 0 && at != std::string::npos &&
        std::sscanf(line.c_str() + at, " needed=%llu", &needed) == 1) {
      EXPECT_LE(needed, given) << line;
    }
  }
}

// While the handle's stream captures a CUDA graph, nothing is planned, allocated, freed or
// synchronized: an unplanned kernel is captured undivided, a planned one micro-batched, and
// the launched graph computes what cuDNN's own call does.
TEST_F(NeverHarms, CaptureRecordsOnlyConvolutions) {
  Layer& l = add_layer(16, 20, 20, 3, 1);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  check(cudnnSetStream(handle, stream), "cudnnSetStream");
  void* expected = device(l.y_count());
  auto* direct = real<decltype(cudnnConvolutionForward)>("cudnnConvolutionForward");
  ASSERT_TRUE(direct);
  const float one = 1, zero = 0;
  check(direct(handle, &one, l.x, l.x_data, l.w, l.w_data, l.conv,
               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, l.y, expected),
        "direct");
  const std::size_t given = 1 << 20;
  void* workspace = device(given / sizeof(float));

  auto capture_and_launch = [&](const char* what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(cudaMemset(l.y_data, 0xFF, l.y_count() * sizeof(float)), cudaSuccess);
    const std::size_t start = trace_size();
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    cudnnConvolutionFwdAlgoPerf_t perf{};
    check(get_v7(l, &perf), "Get_v7 during capture");
    check(forward(l, kVirtualForward, workspace, given), "forward during capture");
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << "the capture was invalidated";
    const TraceCounts counts = count_trace(start);
    EXPECT_EQ(counts.capture_violations, 0);
    EXPECT_EQ(counts.allocations + counts.failed_allocations, 0);
    EXPECT_EQ(counts.synchronizations, 0);
    EXPECT_EQ(counts.convolutions, 0) << "nothing runs during capture";
    EXPECT_GE(counts.captured, 1);
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_LT(relative_error(read(l.y_data, l.y_count()), read(expected, l.y_count())), 1e-5);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  };
  capture_and_launch("before any plan: passed through undivided");
  cudnnConvolutionFwdAlgoPerf_t perf[2];
  int returned = 0;
  check(cudnnFindConvolutionForwardAlgorithm(handle, l.x, l.w, l.conv, l.y, 2, &returned, perf),
        "Find");
  capture_and_launch("after Find: the plan runs");
  check(cudnnSetStream(handle, nullptr), "cudnnSetStream");
  cudaStreamDestroy(stream);
}

// cudnnConvolutionBiasActivationForward with the virtual algorithm: the same result as
// cuDNN's fused call, for RELU and IDENTITY, with z apart from y and z = y.
TEST_F(NeverHarms, FusedConvolutionWithTheVirtualAlgorithmMatchesCudnn) {
  Layer& l = add_layer(16, 28, 28, 3, 1);
  cudnnTensorDescriptor_t bias_desc = nullptr;
  cudnnCreateTensorDescriptor(&bias_desc);
  cudnnSetTensor4dDescriptor(bias_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, l.k, 1, 1);
  void* bias = device(l.k);
  fill(bias, l.k, random.engine());
  void* z = device(l.y_count());
  fill(z, l.y_count(), random.engine());
  void* expected = device(l.y_count());
  const std::size_t given = 4 << 20;
  void* workspace = device(given / sizeof(float));
  auto* direct = real<decltype(cudnnConvolutionBiasActivationForward)>(
      "cudnnConvolutionBiasActivationForward");
  ASSERT_TRUE(direct);
  cudnnConvolutionFwdAlgoPerf_t perf[1];
  int returned = 0;
  check(cudnnFindConvolutionForwardAlgorithm(handle, l.x, l.w, l.conv, l.y, 1, &returned, perf),
        "Find");
  ASSERT_EQ(perf[0].algo, kVirtualForward);
  const float alpha1 = 0.75f, alpha2 = 0.5f;
  for (auto mode : {CUDNN_ACTIVATION_RELU, CUDNN_ACTIVATION_IDENTITY})
    for (bool in_place : {false, true}) {
      SCOPED_TRACE(std::string(mode == CUDNN_ACTIVATION_RELU ? "RELU" : "IDENTITY") +
                   (in_place ? ", z = y" : ", z apart"));
      cudnnActivationDescriptor_t activation = nullptr;
      cudnnCreateActivationDescriptor(&activation);
      cudnnSetActivationDescriptor(activation, mode, CUDNN_NOT_PROPAGATE_NAN, 0);
      fill(l.y_data, l.y_count(), random.engine());
      ASSERT_EQ(cudaMemcpy(expected, in_place ? l.y_data : z, l.y_count() * sizeof(float),
                           cudaMemcpyDeviceToDevice),
                cudaSuccess);
      const void* z_data = in_place ? l.y_data : z;
      check(direct(handle, &alpha1, l.x, l.x_data, l.w, l.w_data, l.conv,
                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, workspace, given, &alpha2, l.y,
                   in_place ? expected : z, bias_desc, bias, activation, l.y, expected),
            "cuDNN's fused call");
      check(cudnnConvolutionBiasActivationForward(
                handle, &alpha1, l.x, l.x_data, l.w, l.w_data, l.conv, kVirtualForward, workspace,
                given, &alpha2, l.y, z_data, bias_desc, bias, activation, l.y, l.y_data),
            "the fused call with the virtual algorithm");
      EXPECT_LT(relative_error(read(l.y_data, l.y_count()), read(expected, l.y_count())), 1e-5);
      cudnnDestroyActivationDescriptor(activation);
    }
  cudnnDestroyTensorDescriptor(bias_desc);
}

// A fused call that ucudnn does not plan (here x has a negative stride, which cuDNN's
// descriptors accept) is cuDNN's to answer, whole: each wrong epilogue gets cuDNN's own status,
// not the one the shim's unfused steps would meet first.
TEST_F(NeverHarms, AFusedCallUcudnnDoesNotPlanIsAnsweredByCudnn) {
  Layer& l = add_layer(4, 8, 8, 3, 1);
  cudnnTensorDescriptor_t reversed = nullptr, bias_desc = nullptr, wrong_bias = nullptr;
  cudnnCreateTensorDescriptor(&reversed);
  cudnnCreateTensorDescriptor(&bias_desc);
  cudnnCreateTensorDescriptor(&wrong_bias);
  const int dims[] = {l.n, l.c, 16, 16}, strides[] = {l.c * 256, 256, 16, -1};
  check(cudnnSetTensorNdDescriptor(reversed, CUDNN_DATA_FLOAT, 4, dims, strides), "reversed x");
  cudnnSetTensor4dDescriptor(bias_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, l.k, 1, 1);
  cudnnSetTensor4dDescriptor(wrong_bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, l.k + 1, 1, 1);
  cudnnActivationDescriptor_t relu = nullptr, unset = nullptr, tanh = nullptr;
  cudnnCreateActivationDescriptor(&relu);
  cudnnCreateActivationDescriptor(&unset);
  cudnnCreateActivationDescriptor(&tanh);
  cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0);
  cudnnSetActivationDescriptor(tanh, CUDNN_ACTIVATION_TANH, CUDNN_NOT_PROPAGATE_NAN, 0);
  void* bias = device(l.k + 1);
  const std::size_t given = 1 << 20;
  void* workspace = device(given / sizeof(float));
  auto* direct = real<decltype(cudnnConvolutionBiasActivationForward)>(
      "cudnnConvolutionBiasActivationForward");
  ASSERT_TRUE(direct);
  const float alpha1 = 1, alpha2 = 0;
  struct Case {
    const char* name;
    cudnnActivationDescriptor_t activation;
    cudnnTensorDescriptor_t bias;
  };
  for (const Case& c : {Case{"valid", relu, bias_desc}, Case{"unset activation", unset, bias_desc},
                        Case{"null activation", nullptr, bias_desc}, Case{"TANH", tanh, bias_desc},
                        Case{"bias of K + 1", relu, wrong_bias}}) {
    SCOPED_TRACE(c.name);
    const cudnnStatus_t expected =
        direct(handle, &alpha1, reversed, l.x_data, l.w, l.w_data, l.conv,
               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, workspace, given, &alpha2, l.y,
               l.y_data, c.bias, bias, c.activation, l.y, l.y_data);
    EXPECT_NE(expected, CUDNN_STATUS_SUCCESS) << "the double runs positive strides only";
    EXPECT_EQ(cudnnConvolutionBiasActivationForward(handle, &alpha1, reversed, l.x_data, l.w,
                                                    l.w_data, l.conv, kVirtualForward, workspace,
                                                    given, &alpha2, l.y, l.y_data, c.bias, bias,
                                                    c.activation, l.y, l.y_data),
              expected);
  }
  for (auto a : {relu, unset, tanh}) cudnnDestroyActivationDescriptor(a);
  for (auto t : {reversed, bias_desc, wrong_bias}) cudnnDestroyTensorDescriptor(t);
}

}  // namespace
