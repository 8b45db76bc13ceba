#include "division_training.h"

#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <thread>

#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "core/workspace_sharing.h"
#include "layer_tensors.h"
#include "model_benchmarker.h"

namespace ucudnn::testing::division {

const std::vector<Shape> kNetwork = {
    {3, 16, 5, 2}, {16, 16, 3, 1}, {16, 16, 3, 1}, {16, 16, 3, 1}, {16, 32, 3, 1}};
const std::vector<Shape> kTower = {
    {3, 24, 3, 1}, {24, 24, 5, 2}, {24, 24, 5, 2}, {24, 24, 5, 2}, {24, 8, 3, 1}};

std::uint64_t total_workspace() {
  const char* value = std::getenv("UCUDNN_TOTAL_WORKSPACE_SIZE");
  return value ? std::strtoull(value, nullptr, 10) : 0;
}

namespace {

constexpr int kOperations = 3;

void check(cudnnStatus_t status, const char* what) {
  ASSERT_EQ(status, CUDNN_STATUS_SUCCESS) << what;
}

// One layer at one batch size: descriptors and device tensors, and the algorithm and
// workspace the application chose per operation (ucudnn's virtual one, 0 bytes under WD).
struct Layer : LayerTensors {
  int algorithm[kOperations] = {-1, -1, -1};
  std::size_t memory[kOperations] = {};

  Layer(const Shape& s, int batch, DeviceBuffers& buffers, std::mt19937_64& random)
      : LayerTensors(batch, s.c, s.k, s.filter, s.pad, kSize, buffers, random) {}

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

}  // namespace

Outcome train(const Scenario& scenario, std::mt19937_64& random) {
  Outcome outcome;
  DeviceBuffers buffers;
  const std::vector<const std::vector<Shape>*> networks =
      scenario.towers ? std::vector{&kNetwork, &kTower} : std::vector{&kNetwork};
  // [batch][tower][layer]
  std::map<int, std::vector<std::vector<std::unique_ptr<Layer>>>> by_batch;
  for (int batch : scenario.batches)
    if (!by_batch.count(batch))
      for (const auto* network : networks) {
        auto& tower = by_batch[batch].emplace_back();
        for (const auto& shape : *network)
          tower.push_back(std::make_unique<Layer>(shape, batch, buffers, random));
      }
  const bool two_streams =
      scenario.two_streams || (scenario.towers && !scenario.towers_on_one_stream);
  std::vector<cudaStream_t> streams(two_streams ? 2 : 1);
  for (auto& s : streams) EXPECT_EQ(cudaStreamCreate(&s), cudaSuccess);
  const cudaStream_t stream = streams.front();
  std::vector<cudnnHandle_t> handles(scenario.towers ? 2 : scenario.handles);
  for (std::size_t h = 0; h < handles.size(); ++h) {
    EXPECT_EQ(cudnnCreate(&handles[h]), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetStream(handles[h], streams[h % streams.size()]), CUDNN_STATUS_SUCCESS);
  }
  // Which handle runs an operation of layer l: per tower, forward and backward threads, or
  // under two streams alternating layers (same-shape neighbours then share a kernel on two
  // streams).
  auto handle_for = [&](std::size_t tower, std::size_t l, int operation) {
    if (scenario.towers) return handles[tower];
    if (scenario.two_streams) return handles[l % handles.size()];
    return operation == 0 ? handles.front() : handles.back();
  };
  // Before selection: an arena taken from the database at the first call counts as held.
  std::size_t free_before = 0, total = 0;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(cudaMemGetInfo(&free_before, &total), cudaSuccess);
  void* filler = nullptr;
  if (scenario.leave_free > 0 && free_before > scenario.leave_free) {
    EXPECT_EQ(cudaMalloc(&filler, free_before - scenario.leave_free), cudaSuccess);
    free_before = scenario.leave_free;
  }
  if (!scenario.lazy)
    for (auto& [batch, towers] : by_batch)
      for (std::size_t t = 0; t < towers.size(); ++t)
        for (std::size_t l = 0; l < towers[t].size(); ++l)
          for (int operation = 0; operation < kOperations; ++operation)
            towers[t][l]->select(handle_for(t, l, operation), operation);
  const std::size_t trace_start = trace_size();
  cudaEvent_t start, end;
  cudaEventCreate(&start);
  cudaEventCreate(&end);
  std::vector<cudaEvent_t> stream_end(streams.size());
  for (auto& event : stream_end) cudaEventCreate(&event);
  for (int i = 0; i < scenario.iterations; ++i) {
    auto& towers = by_batch[scenario.batches[i % scenario.batches.size()]];
    const std::size_t from = trace_size();
    cudaEventRecord(start, stream);
    for (auto s : streams) cudaStreamWaitEvent(s, start, 0);
    auto on_thread = [&](std::function<void()> work) {
      if (scenario.handles == 1 || scenario.two_streams || scenario.towers) return work();
      std::thread(std::move(work)).join();  // a framework's other thread, one at a time
    };
    auto step = [&](std::size_t t, std::size_t l, int operation) {
      if (t == 1 && scenario.second_tower_stops_at >= 0 && i >= scenario.second_tower_stops_at)
        return;
      auto& layer = *towers[t][l];
      if (scenario.lazy) layer.select(handle_for(t, l, operation), operation);
      layer.run(handle_for(t, l, operation), operation);
    };
    const std::size_t depth = kNetwork.size();
    on_thread([&] {
      for (std::size_t l = 0; l < depth; ++l)
        for (std::size_t t = 0; t < towers.size(); ++t) step(t, l, 0);
    });
    on_thread([&] {
      for (std::size_t l = depth; l-- > 0;)
        for (std::size_t t = 0; t < towers.size(); ++t)
          for (int operation : {1, 2}) step(t, l, operation);
    });
    for (std::size_t s = 0; s < streams.size(); ++s) {
      cudaEventRecord(stream_end[s], streams[s]);
      cudaStreamWaitEvent(stream, stream_end[s], 0);
    }
    cudaEventRecord(end, stream);
    outcome.counts.push_back(count_trace(from));  // before this program synchronizes
    EXPECT_EQ(cudaEventSynchronize(end), cudaSuccess);
    std::vector<double> stream_ms;
    for (auto event : stream_end) {
      float ms = 0;
      EXPECT_EQ(cudaEventElapsedTime(&ms, start, event), cudaSuccess);
      stream_ms.push_back(ms);
    }
    outcome.stream_ms.push_back(std::move(stream_ms));
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, start, end), cudaSuccess);
    outcome.iteration_ms.push_back(ms);
  }
  std::size_t free_after = 0;
  EXPECT_EQ(cudaMemGetInfo(&free_after, &total), cudaSuccess);
  outcome.held_bytes = free_before - free_after;
  for (const auto& line : trace_lines(trace_start)) {
    outcome.races += line.rfind("race ", 0) == 0;
    outcome.failed_allocations +=
        line.rfind("malloc ", 0) == 0 && line.find(" ok=0") != std::string::npos;
  }
  if (filler) {
    EXPECT_EQ(cudaFree(filler), cudaSuccess);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(end);
  for (auto event : stream_end) cudaEventDestroy(event);
  for (auto handle : handles) cudnnDestroy(handle);  // the last one ends the WD session
  for (auto s : streams) cudaStreamDestroy(s);
  return outcome;
}

Optimum planner_optimum(int batch, const std::vector<const std::vector<Shape>*>& towers,
                        const std::vector<std::size_t>& group_of_tower) {
  ucudnn::fakecuda::ModelBenchmarker model;
  std::vector<SharingKernel> kernels;
  for (std::size_t t = 0; t < towers.size(); ++t)
    for (std::size_t l = 0; l < towers[t]->size(); ++l) {
      if (l == 2 || l == 3) continue;  // the same kernels as layer 1
      const Shape& s = (*towers[t])[l];
      ucudnn::ConvolutionProblem p;
      p.x = ucudnn::TensorShape::packed({batch, s.c, kSize, kSize});
      p.w = ucudnn::TensorShape::packed({s.k, s.c, s.filter, s.filter});
      p.y = ucudnn::TensorShape::packed({batch, s.k, kSize, kSize});
      p.padding = {s.pad, s.pad};
      p.stride = {1, 1};
      p.dilation = {1, 1};
      p.mode = ucudnn::ConvolutionMode::kCrossCorrelation;
      for (auto op : {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
        const KernelKey key{op, p};
        auto table = ucudnn::restrict_to_limit(
            ucudnn::measure_micro_table(model, key, BatchSizePolicy::kPowerOfTwo,
                                        ucudnn::kNoWorkspaceLimit),
            total_workspace());
        kernels.push_back({key.to_string(), ucudnn::desirable_configurations(table),
                           l == 1 ? 3.0 : 1.0, group_of_tower[t]});
      }
    }
  const std::size_t groups = *std::max_element(group_of_tower.begin(), group_of_tower.end()) + 1;
  auto division = ucudnn::plan_shared_division(kernels, groups, total_workspace());
  EXPECT_TRUE(division) << division.error();
  if (!division) return {};
  Optimum optimum{0, division->workspace_bytes, std::vector<double>(groups, 0)};
  for (std::size_t k = 0; k < kernels.size(); ++k)
    optimum.group_ms[kernels[k].group] +=
        kernels[k].weight * kernels[k].front[division->choice[k]].time_ms();
  optimum.time_ms = *std::max_element(optimum.group_ms.begin(), optimum.group_ms.end());
  return optimum;
}
Optimum planner_optimum(int batch) {
  return planner_optimum(batch, {&kNetwork}, {0});
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

}  // namespace ucudnn::testing::division
