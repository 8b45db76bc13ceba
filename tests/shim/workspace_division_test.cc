// WD as frameworks run it, on the doubles with the shim preloaded and
// UCUDNN_TOTAL_WORKSPACE_SIZE set (CMake): a network A B B B C (a repeated shape, as in every
// ResNet stage) trained with forward on one handle and thread and backward on another (as
// PyTorch's autograd thread), algorithms selected lazily right before each layer's first use
// or eagerly up front, batches that change, a layer frozen mid-training, and same-shape layers
// on two streams. Each checks what the doubles count: one arena per device, the division the
// planner itself finds optimal (the repeated layer weighted three times), nothing allocated,
// freed or synchronized per iteration once learned, and no workspace shared by two streams
// without an event between.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "core/workspace_division.h"
#include "device_harness.h"
#include "model_benchmarker.h"
#include "support/random_seed.h"

namespace {

using namespace ucudnn::testing;
using ucudnn::BatchSizePolicy;
using ucudnn::KernelCandidates;
using ucudnn::KernelKey;
using ucudnn::Operation;

constexpr int kOperations = 3;

void check(cudnnStatus_t status, const char* what) {
  ASSERT_EQ(status, CUDNN_STATUS_SUCCESS) << what;
}

std::uint64_t total_workspace() {
  const char* value = std::getenv("UCUDNN_TOTAL_WORKSPACE_SIZE");
  return value ? std::strtoull(value, nullptr, 10) : 0;
}

struct Shape {
  int c, k, filter, pad;
};
// A B B B C: B three times, one kernel per operation with three runs per iteration.
const std::vector<Shape> kNetwork = {
    {3, 16, 5, 2}, {16, 16, 3, 1}, {16, 16, 3, 1}, {16, 16, 3, 1}, {16, 32, 3, 1}};
constexpr int kSize = 16;

// One layer at one batch size: descriptors and device tensors, and the algorithm and
// workspace the application chose per operation (ucudnn's virtual one, 0 bytes under WD).
struct Layer {
  Shape shape;
  int n;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *x_data, *w_data, *y_data, *dx, *dw, *dy;
  int algorithm[kOperations] = {-1, -1, -1};
  std::size_t memory[kOperations] = {};

  Layer(const Shape& s, int batch, DeviceBuffers& buffers, std::mt19937_64& random)
      : shape(s), n(batch) {
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, s.c, kSize, kSize);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, s.k, kSize, kSize);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.k, s.c, s.filter,
                               s.filter);
    cudnnSetConvolution2dDescriptor(conv, s.pad, s.pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    const std::size_t xs = std::size_t(n) * s.c * kSize * kSize,
                      ys = std::size_t(n) * s.k * kSize * kSize,
                      ws = std::size_t(s.k) * s.c * s.filter * s.filter;
    x_data = buffers.allocate(xs);
    dx = buffers.allocate(xs);
    w_data = buffers.allocate(ws);
    dw = buffers.allocate(ws);
    y_data = buffers.allocate(ys);
    dy = buffers.allocate(ys);
    fill(x_data, xs, random);
    fill(w_data, ws, random);
    fill(dy, ys, random);
  }
  ~Layer() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  void select(cudnnHandle_t handle, int operation) {
    if (algorithm[operation] >= 0) return;
    int returned = 0;
    if (operation == 0) {
      cudnnConvolutionFwdAlgoPerf_t perf{};
      check(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 1, &returned, &perf),
            "Get forward");
      algorithm[0] = perf.algo, memory[0] = perf.memory;
    } else if (operation == 1) {
      cudnnConvolutionBwdDataAlgoPerf_t perf{};
      check(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, y, conv, x, 1, &returned, &perf),
            "Get backward data");
      algorithm[1] = perf.algo, memory[1] = perf.memory;
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf{};
      check(
          cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, y, conv, w, 1, &returned, &perf),
          "Get backward filter");
      algorithm[2] = perf.algo, memory[2] = perf.memory;
    }
    ASSERT_EQ(memory[operation], 0u) << "under WD the arena is ucudnn's";
  }
  // The application gives each call the workspace it was told (none under WD).
  void run(cudnnHandle_t handle, int operation) {
    const float one = 1, zero = 0;
    if (operation == 0)
      check(cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv,
                                    cudnnConvolutionFwdAlgo_t(algorithm[0]), nullptr, 0, &zero, y,
                                    y_data),
            "forward");
    else if (operation == 1)
      check(cudnnConvolutionBackwardData(handle, &one, w, w_data, y, dy, conv,
                                         cudnnConvolutionBwdDataAlgo_t(algorithm[1]), nullptr, 0,
                                         &zero, x, dx),
            "backward data");
    else
      check(cudnnConvolutionBackwardFilter(handle, &one, x, x_data, y, dy, conv,
                                           cudnnConvolutionBwdFilterAlgo_t(algorithm[2]), nullptr,
                                           0, &zero, w, dw),
            "backward filter");
  }
};

struct Scenario {
  int handles = 1;               // 2: backward on a second handle, run from another thread
  bool two_streams = false;      // with 2 handles: each its own stream, layers alternating
  bool lazy = false;             // select right before a layer's first call, not up front
  std::vector<int> batches{16};  // per iteration, cycled
  int iterations = 5;
  int freeze_first_layer_at = -1;  // from this iteration on, layer 0's filter is not trained
};

struct Outcome {
  std::vector<double> iteration_ms;
  std::vector<TraceCounts> counts;  // per iteration, below the shim
  std::size_t held_bytes = 0;       // device memory ucudnn holds after the last iteration
  int races = 0;
};

// Trains kNetwork as the scenario says, on one stream shared by the handles (PyTorch's
// threads use the device's current stream).
Outcome train(const Scenario& scenario, std::mt19937_64& random) {
  Outcome outcome;
  DeviceBuffers buffers;
  std::map<int, std::vector<std::unique_ptr<Layer>>> by_batch;
  for (int batch : scenario.batches)
    if (!by_batch.count(batch))
      for (const auto& shape : kNetwork)
        by_batch[batch].push_back(std::make_unique<Layer>(shape, batch, buffers, random));
  std::vector<cudaStream_t> streams(scenario.two_streams ? 2 : 1);
  for (auto& s : streams) EXPECT_EQ(cudaStreamCreate(&s), cudaSuccess);
  const cudaStream_t stream = streams.front();
  std::vector<cudnnHandle_t> handles(scenario.handles);
  for (std::size_t h = 0; h < handles.size(); ++h) {
    EXPECT_EQ(cudnnCreate(&handles[h]), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetStream(handles[h], streams[h % streams.size()]), CUDNN_STATUS_SUCCESS);
  }
  // Which handle runs an operation of layer l: forward and backward threads, or under two
  // streams alternating layers (same-shape neighbours then share a kernel on two streams).
  auto handle_for = [&](std::size_t l, int operation) {
    if (scenario.two_streams) return handles[l % handles.size()];
    return operation == 0 ? handles.front() : handles.back();
  };
  // Before selection: an arena taken from the database at the first call counts as held.
  std::size_t free_before = 0, total = 0;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  if (!scenario.lazy)
    for (auto& [batch, layers] : by_batch)
      for (std::size_t l = 0; l < layers.size(); ++l)
        for (int operation = 0; operation < kOperations; ++operation)
          layers[l]->select(handle_for(l, operation), operation);
  const std::size_t trace_start = trace_size();
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  for (int i = 0; i < scenario.iterations; ++i) {
    auto& layers = by_batch[scenario.batches[i % scenario.batches.size()]];
    const std::size_t from = trace_size();
    cudaEventRecord(start, stream);
    for (auto s : streams) cudaStreamWaitEvent(s, start, 0);
    auto on_thread = [&](std::function<void()> work) {
      if (scenario.handles == 1 || scenario.two_streams) return work();
      std::thread(std::move(work)).join();  // a framework's other thread, one at a time
    };
    auto step = [&](std::size_t l, int operation) {
      const bool frozen =
          scenario.freeze_first_layer_at >= 0 && i >= scenario.freeze_first_layer_at;
      if (frozen && l == 0 && operation == 2) return;  // fine-tuning: no gradient for layer 0
      if (scenario.lazy) layers[l]->select(handle_for(l, operation), operation);
      layers[l]->run(handle_for(l, operation), operation);
    };
    on_thread([&] {
      for (std::size_t l = 0; l < layers.size(); ++l) step(l, 0);
    });
    on_thread([&] {
      for (std::size_t l = layers.size(); l-- > 0;)
        for (int operation : {1, 2}) step(l, operation);
    });
    for (auto s : streams) {
      cudaEventRecord(end, s);
      cudaStreamWaitEvent(stream, end, 0);
    }
    cudaEventRecord(end, stream);
    outcome.counts.push_back(count_trace(from));
    EXPECT_EQ(cudaEventSynchronize(end), cudaSuccess);
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, start, end), cudaSuccess);
    outcome.iteration_ms.push_back(ms);
  }
  std::size_t free_after = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  outcome.held_bytes = free_before - free_after;
  for (const auto& line : trace_lines(trace_start)) outcome.races += line.rfind("race ", 0) == 0;
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  for (auto handle : handles) cudnnDestroy(handle);  // the last one ends the WD session
  for (auto s : streams) cudaStreamDestroy(s);
  return outcome;
}

// What the planner finds optimal for kNetwork at `batch` within the total, each operation's
// B kernel weighted `repeat` times (the shim measures the same model, so times agree exactly
// but for the float the doubles' events report). time_ms: the division's time per iteration
// of the real network (B run three times), whatever weight it was found with.
struct Optimum {
  double time_ms = 0;
  std::uint64_t arena_bytes = 0;
};
Optimum planner_optimum(int batch, int repeat, bool first_layer_frozen = false) {
  std::vector<ucudnn::ParetoFront> fronts;
  std::vector<int> runs;
  ucudnn::fakecuda::ModelBenchmarker model;
  std::vector<KernelCandidates> candidates;
  for (std::size_t l = 0; l < kNetwork.size(); ++l) {
    if (l == 2 || l == 3) continue;  // the same kernels as layer 1
    const Shape& s = kNetwork[l];
    ucudnn::ConvolutionProblem p;
    p.x = ucudnn::TensorShape::packed({batch, s.c, kSize, kSize});
    p.w = ucudnn::TensorShape::packed({s.k, s.c, s.filter, s.filter});
    p.y = ucudnn::TensorShape::packed({batch, s.k, kSize, kSize});
    p.padding = {s.pad, s.pad};
    p.stride = {1, 1};
    p.dilation = {1, 1};
    p.mode = ucudnn::ConvolutionMode::kCrossCorrelation;
    for (auto op : {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
      if (first_layer_frozen && l == 0 && op == Operation::kBackwardFilter) continue;
      const KernelKey key{op, p};
      auto table = ucudnn::restrict_to_limit(
          ucudnn::measure_micro_table(model, key, BatchSizePolicy::kPowerOfTwo,
                                      ucudnn::kNoWorkspaceLimit),
          total_workspace());
      auto front = ucudnn::desirable_configurations(table);
      fronts.push_back(front);
      runs.push_back(l == 1 ? 3 : 1);
      const int weight = l == 1 ? repeat : 1;
      for (auto& configuration : front)
        for (auto& m : configuration.micro) m.time_ms *= weight;
      candidates.push_back({key.to_string(), std::move(front)});
    }
  }
  auto division = ucudnn::plan_workspace_division(candidates, total_workspace());
  EXPECT_TRUE(division) << division.error();
  if (!division) return {};
  Optimum optimum{0, division->workspace_bytes};
  for (std::size_t i = 0; i < fronts.size(); ++i)
    optimum.time_ms += runs[i] * fronts[i][division->choice[i]].time_ms();
  return optimum;
}

void expect_steady(const Outcome& outcome, std::size_t from, const char* what) {
  for (std::size_t i = from; i < outcome.counts.size(); ++i) {
    SCOPED_TRACE(std::string(what) + ", iteration " + std::to_string(i));
    EXPECT_EQ(outcome.counts[i].allocations, 0);
    EXPECT_EQ(outcome.counts[i].frees, 0);
    EXPECT_EQ(outcome.counts[i].synchronizations, 0);
  }
}

void print(const char* what, const Outcome& outcome) {
  std::printf("%-34s", what);
  for (double ms : outcome.iteration_ms) std::printf(" %.6f", ms);
  std::printf(" ms per iteration; %zu bytes held, %d races\n", outcome.held_bytes, outcome.races);
}

class WorkspaceDivision : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::getenv("FAKECUDA_TRACE")) << "CTest sets FAKECUDA_TRACE";
    ASSERT_GT(total_workspace(), 0u) << "CTest sets UCUDNN_TOTAL_WORKSPACE_SIZE";
    Dl_info info{};
    ASSERT_TRUE(dladdr(reinterpret_cast<const void*>(&cudnnConvolutionForward), &info));
    ASSERT_NE(std::string(info.dli_fname).find("libucudnn_preload.so"), std::string::npos)
        << "run this test with LD_PRELOAD=libucudnn_preload.so (CTest does)";
  }
  SeededRandom random;
};

// Lazy selection on two handles (forward and backward threads) divides as eager selection on
// one: one arena, the repeated layer weighted three times, the planner's optimum per iteration.
TEST_F(WorkspaceDivision, LazyOnTwoHandlesDividesAsEagerOnOneAtThePlannersOptimum) {
  const Optimum optimum = planner_optimum(16, 3), unweighted = planner_optimum(16, 1);
  std::printf("planner: %.6f ms in %llu bytes; with B weighted 1 instead of 3: %.6f ms\n",
              optimum.time_ms, static_cast<unsigned long long>(optimum.arena_bytes),
              unweighted.time_ms);
  ASSERT_LE(optimum.arena_bytes, total_workspace());
  ASSERT_GT(unweighted.time_ms, optimum.time_ms * (1 + 1e-4))
      << "a total where the repeated layer's weight matters";

  // Lazy first: it learns. The division it stores is the one eager then finds in the (process's)
  // database at its first call.
  const Outcome lazy = train({2, false, true}, random.engine());
  const Outcome eager = train({1, false, false}, random.engine());
  print("eager, one handle:", eager);
  print("lazy, two handles:", lazy);
  for (const Outcome* outcome : {&eager, &lazy}) {
    // Learning takes two iterations; the third runs the division.
    EXPECT_NEAR(outcome->iteration_ms.back(), optimum.time_ms, 1e-5 * optimum.time_ms + 2e-6);
    EXPECT_EQ(outcome->iteration_ms.back(), outcome->iteration_ms[2]);
    EXPECT_EQ(outcome->held_bytes, optimum.arena_bytes) << "one arena, nothing else held";
    EXPECT_EQ(outcome->races, 0);
    expect_steady(*outcome, 3, outcome == &eager ? "eager" : "lazy");
  }
  EXPECT_EQ(lazy.iteration_ms.back(), eager.iteration_ms.back());
}

// An epoch's smaller last batch, evaluation batches: kernels that differ only in N share one
// segment (sized for the largest), so alternating 16 and 12 holds no more than 16 alone and,
// once learned, allocates and divides nothing more.
TEST_F(WorkspaceDivision, ChangingBatchesShareSegmentsAndSettle) {
  const Optimum optimum = planner_optimum(16, 3);
  const Outcome alternating = train({2, false, true, {16, 12}, 8}, random.engine());
  print("batch 16/12 alternating:", alternating);
  EXPECT_EQ(alternating.held_bytes, optimum.arena_bytes);
  EXPECT_NEAR(alternating.iteration_ms[6], optimum.time_ms, 1e-5 * optimum.time_ms + 2e-6)
      << "the batch-16 iterations run the batch-16 division";
  EXPECT_EQ(alternating.iteration_ms[7], alternating.iteration_ms[5]);
  EXPECT_EQ(alternating.races, 0);
  expect_steady(alternating, 5, "alternating");
}

// Kernels that stop running age out: freezing the first layer (fine-tuning) ends its
// BackwardFilter; once the new iteration is learned, the division is the planner's optimum
// for the kernels still run, in an arena of that division's size (the old one freed), and
// steady again.
TEST_F(WorkspaceDivision, AKernelNoLongerRunAgesOut) {
  const Optimum full = planner_optimum(16, 3), frozen = planner_optimum(16, 3, true);
  std::printf("planner: %.6f ms in %llu bytes; first layer frozen: %.6f ms in %llu bytes\n",
              full.time_ms, static_cast<unsigned long long>(full.arena_bytes), frozen.time_ms,
              static_cast<unsigned long long>(frozen.arena_bytes));
  ASSERT_NE(full.arena_bytes, frozen.arena_bytes)
      << "a total where the frozen kernel's share shows";
  Scenario scenario{2, false, true, {16}, 9};
  scenario.freeze_first_layer_at = 3;
  const Outcome outcome = train(scenario, random.engine());
  print("first layer frozen from iteration 3:", outcome);
  EXPECT_NEAR(outcome.iteration_ms[2], full.time_ms, 1e-5 * full.time_ms + 2e-6);
  EXPECT_NEAR(outcome.iteration_ms.back(), frozen.time_ms, 1e-5 * frozen.time_ms + 2e-6);
  EXPECT_EQ(outcome.iteration_ms.back(), outcome.iteration_ms[7]);
  EXPECT_EQ(outcome.held_bytes, frozen.arena_bytes) << "the old arena freed, the new one held";
  EXPECT_EQ(outcome.races, 0);
  expect_steady(outcome, 7, "frozen");
}

// Layers of one shape on two streams run one kernel, so they share its segment: each use
// waits for the other stream's last one (an event, no host synchronization), or the doubles
// report a race.
TEST_F(WorkspaceDivision, OneSegmentUsedFromTwoStreamsIsOrdered) {
  Scenario scenario;
  scenario.handles = 2;
  scenario.two_streams = true;
  const Outcome outcome = train(scenario, random.engine());
  print("two streams, layers alternating:", outcome);
  EXPECT_EQ(outcome.races, 0);
  EXPECT_LE(outcome.held_bytes, total_workspace());
  expect_steady(outcome, 3, "two streams");
}

// A division made offline (`ucudnn bench --total-workspace`, same device, policy and total) is
// what the shim runs from the first call of a lazily selecting job: nothing measured, the
// planner's optimum from the first iteration on, in one arena. The job is this program again,
// in a process of its own with the tool's database (OfflineDivisionJob below).
TEST_F(WorkspaceDivision, AnOfflineDivisionRunsFromTheFirstIterationWithoutMeasuring) {
  const auto directory = std::filesystem::temp_directory_path() /
                         ("ucudnn-wd-offline-" + std::to_string(random.engine()()));
  std::filesystem::create_directories(directory);
  const auto network = directory / "network.json", database = directory / "plans.db";
  {
    std::ofstream file(network);
    file << R"({"format": "ucudnn-network/1", "name": "abbbc", "layers": [)";
    for (std::size_t l = 0; l < kNetwork.size(); ++l) {
      const Shape& s = kNetwork[l];
      file << (l ? "," : "") << R"({"name": "conv)" << l << R"(", "input": [)" << s.c << ", "
           << kSize << ", " << kSize << R"(], "output_channels": )" << s.k << R"(, "filter": )"
           << s.filter << R"(, "padding": )" << s.pad << "}";
    }
    file << "]}";
  }
  // The tool runs on the doubles too, without the shim and without writing into our trace.
  const auto bench_output = directory / "bench.txt", job_output = directory / "job.txt";
  const std::string bench = std::string("env -u LD_PRELOAD -u FAKECUDA_TRACE ") + UCUDNN_CLI +
                            " bench --backend cudnn --no-check-plans --repeats 1 --policy "
                            "powerOfTwo --batch 16 --network " +
                            network.string() + " --database " + database.string() +
                            " --total-workspace " + std::to_string(total_workspace()) + " > " +
                            bench_output.string() + " 2>&1";
  ASSERT_EQ(std::system(bench.c_str()), 0) << bench;
  const std::string job = "env UCUDNN_DATABASE=" + database.string() + " UCUDNN_WD_OFFLINE_JOB=1 " +
                          std::filesystem::read_symlink("/proc/self/exe").string() +
                          " --gtest_filter=WorkspaceDivision.OfflineDivisionJob > " +
                          job_output.string() + " 2>&1";
  const int status = std::system(job.c_str());
  std::ifstream read(job_output);
  const std::string output((std::istreambuf_iterator<char>(read)), {});
  std::printf("%s", output.c_str());
  EXPECT_EQ(status, 0) << job;
  EXPECT_NE(output.find("[  PASSED  ] 1 test"), std::string::npos);
  std::filesystem::remove_all(directory);
}

TEST_F(WorkspaceDivision, OfflineDivisionJob) {
  if (!std::getenv("UCUDNN_WD_OFFLINE_JOB"))
    GTEST_SKIP() << "the job AnOfflineDivisionRunsFromTheFirstIterationWithoutMeasuring runs";
  const Optimum optimum = planner_optimum(16, 3);
  const Outcome offline = train({2, false, true}, random.engine());
  print("lazy, two handles, offline plan:", offline);
  for (std::size_t i = 0; i < offline.iteration_ms.size(); ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    EXPECT_NEAR(offline.iteration_ms[i], optimum.time_ms, 1e-5 * optimum.time_ms + 2e-6);
    // The application's convolutions and nothing else: no benchmark.
    EXPECT_EQ(offline.counts[i].convolutions, offline.counts.back().convolutions);
  }
  EXPECT_EQ(offline.held_bytes, optimum.arena_bytes);
  EXPECT_EQ(offline.races, 0);
  expect_steady(offline, 1, "offline plan");
}

}  // namespace
