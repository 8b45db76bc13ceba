// The steady state of a planned legacy call, on the doubles: once planned, a call reads its
// descriptors and runs its plan, and what it runs follows the descriptors even when the
// application rewrites one in place (the shim keeps the plan of each call per thread, keyed by
// what the descriptors read). And the host-time account: every interposed call counted, with the
// time inside the real library (the doubles charge a fixed host cost per legacy call,
// FAKECUDA_HOST_COST_US, set by CTest) apart from ucudnn's own; nothing counted below info.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "device_harness.h"
#include "legacy_layers.h"
#include "ucudnn/host_time_account.h"

namespace {

using namespace ucudnn::testing;

class SteadyState : public LegacyLayers {
 protected:
  // A layer whose Forward Get_v7 planned, its workspace allocated as the plan asks.
  struct Planned {
    Layer& layer;
    std::size_t bytes;
    void* workspace;
  };
  Planned planned_layer(int n, int c, int k, int filter, int pad) {
    Layer& l = add_layer(n, c, k, filter, pad);
    cudnnConvolutionFwdAlgoPerf_t best{};
    check(get_v7(l, &best), "Get_v7");
    return {l, best.memory, best.memory ? device(best.memory / sizeof(float) + 1) : nullptr};
  }
  cudnnStatus_t forward(const Planned& p) {
    return LegacyLayers::forward(p.layer, kVirtualForward, p.workspace, p.bytes);
  }

  // The layer's forward, computed by the double itself (past the shim), undivided.
  std::vector<float> reference_forward(const Layer& l) {
    using Forward = decltype(cudnnConvolutionForward);
    auto* direct = real<Forward>("cudnnConvolutionForward");
    EXPECT_NE(direct, nullptr);
    void* y = device(l.y_count());
    const float alpha = 1, beta = 0;
    EXPECT_EQ(direct(handle, &alpha, l.x, l.x_data, l.w, l.w_data, l.conv,
                     CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &beta, l.y, y),
              CUDNN_STATUS_SUCCESS);
    return read(y, l.y_count());
  }
};

bool counting() {
  const char* level = std::getenv("UCUDNN_LOG_LEVEL");
  return level && (std::strcmp(level, "info") == 0 || std::strcmp(level, "debug") == 0);
}

using GetAccount = cudnnStatus_t(UcudnnHostTime*, int, int*);

GetAccount* account_function() {
  return reinterpret_cast<GetAccount*>(dlsym(RTLD_DEFAULT, "ucudnnGetHostTimeAccount"));
}

std::vector<UcudnnHostTime> account() {
  std::vector<UcudnnHostTime> entries;
  GetAccount* get = account_function();
  EXPECT_NE(get, nullptr) << "the preload exports ucudnnGetHostTimeAccount";
  if (!get) return entries;
  int count = 0;
  EXPECT_EQ(get(nullptr, 0, &count), CUDNN_STATUS_SUCCESS);
  entries.resize(static_cast<std::size_t>(count));
  int again = 0;
  EXPECT_EQ(get(entries.data(), count, &again), CUDNN_STATUS_SUCCESS);
  EXPECT_GE(again, count);  // another thread may have called a new function meanwhile
  return entries;
}

const UcudnnHostTime* entry(const std::vector<UcudnnHostTime>& entries, const char* function) {
  for (const auto& e : entries)
    if (std::strcmp(e.function, function) == 0) return &e;
  return nullptr;
}

// The application shrinks the batch by rewriting its descriptors in place, handles unchanged:
// the next call runs a plan for the new batch, never the old batch's micro-batches. (The first
// call after the rewrite also measures what the new batch's plan needs: the calls after it show
// the plan alone.)
TEST_F(SteadyState, ADescriptorRewrittenInPlaceIsPlannedAgain) {
  const Planned p = planned_layer(16, 6, 10, 3, 1);
  Layer& l = p.layer;
  for (int i = 0; i < 3; ++i) check(forward(p), "steady-state forward");
  l.n = 8;
  cudnnSetTensor4dDescriptor(l.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 8, l.c, 16, 16);
  cudnnSetTensor4dDescriptor(l.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 8, l.k, 16, 16);
  check(forward(p), "forward after the rewrite");
  EXPECT_LT(relative_error(read(l.y_data, l.y_count()), reference_forward(l)), 1e-6);
  const std::size_t from = trace_size();
  check(forward(p), "the next forward");
  const auto batches = traced_batches(from);
  ASSERT_FALSE(batches.empty());
  EXPECT_EQ(std::accumulate(batches.begin(), batches.end(), 0LL), 8) << "images computed";
  EXPECT_LT(relative_error(read(l.y_data, l.y_count()), reference_forward(l)), 1e-6);
}

// Once planned, a call causes exactly its plan's micro-batches below the shim: no query of
// cuDNN's algorithms, no allocation, no synchronization.
TEST_F(SteadyState, APlannedCallReachesCudnnOnlyWithItsMicroBatches) {
  const Planned p = planned_layer(16, 5, 7, 5, 2);
  const Layer& l = p.layer;
  check(forward(p), "first forward");
  const std::size_t first = trace_size();
  check(forward(p), "second forward");
  const auto one_call = traced_batches(first);
  const std::size_t from = trace_size();
  constexpr int kCalls = 20;
  for (int i = 0; i < kCalls; ++i) check(forward(p), "steady-state forward");
  const TraceCounts counts = count_trace(from);
  EXPECT_EQ(counts.convolutions, kCalls * static_cast<int>(one_call.size()));
  EXPECT_EQ(counts.allocations + counts.failed_allocations, 0);
  EXPECT_EQ(counts.synchronizations, 0);
  int selections = 0;
  for (const auto& line : trace_lines(from)) selections += line.rfind("select ", 0) == 0;
  EXPECT_EQ(selections, 0);
  EXPECT_LT(relative_error(read(l.y_data, l.y_count()), reference_forward(l)), 1e-6);
}

// A framework that asks for the algorithm before every call (Get_v7, then the convolution with
// the virtual algorithm it names) keeps the steady state: the same plan reported again changes
// nothing a thread's cached call took from it. The general path reads the handle's stream
// (cudnnGetStream: the double traces each) where the steady state does not, so the calls after
// a Get read it no more than the calls without one.
TEST_F(SteadyState, AFrameworkThatAsksBeforeEveryCallStaysInTheSteadyState) {
  const Planned p = planned_layer(16, 5, 6, 3, 1);
  cudnnConvolutionFwdAlgoPerf_t best{};
  check(forward(p), "first forward");
  check(get_v7(p.layer, &best), "Get_v7");
  check(forward(p), "forward after a Get");
  constexpr int kCalls = 20;
  auto stream_queries = [&](bool ask, bool call) {
    const std::size_t from = trace_size();
    for (int i = 0; i < kCalls; ++i) {
      if (ask) check(get_v7(p.layer, &best), "Get_v7");
      if (call) check(forward(p), "forward");
    }
    int queries = 0;
    for (const auto& line : trace_lines(from)) queries += line.rfind("stream-query", 0) == 0;
    return queries;
  };
  const int calls_alone = stream_queries(false, true);
  const int asks_alone = stream_queries(true, false);
  const int asks_and_calls = stream_queries(true, true);
  EXPECT_EQ(asks_and_calls - asks_alone, calls_alone)
      << "calls after a Get left the steady state (the general path reads the stream)";
  EXPECT_EQ(best.algo, kVirtualForward);
  EXPECT_LT(relative_error(read(p.layer.y_data, p.layer.y_count()), reference_forward(p.layer)),
            1e-6);
}

// At info, every call of every interposed function is counted, and the doubles' host cost per
// legacy call shows inside cuDNN, not as ucudnn's own; below info nothing is counted.
TEST_F(SteadyState, TheHostTimeAccountCountsEachCallAndWhereItsTimeWent) {
  const Planned p = planned_layer(16, 4, 4, 3, 1);
  check(forward(p), "first forward");
  const auto before = account();
  constexpr int kCalls = 25;
  for (int i = 0; i < kCalls; ++i) check(forward(p), "forward");
  const auto after = account();
  const UcudnnHostTime* forward_after = entry(after, "cudnnConvolutionForward");
  if (!counting()) {
    EXPECT_TRUE(after.empty()) << "counted below info: " << after.front().function;
    return;
  }
  ASSERT_NE(forward_after, nullptr);
  const UcudnnHostTime* forward_before = entry(before, "cudnnConvolutionForward");
  ASSERT_NE(forward_before, nullptr);
  EXPECT_EQ(forward_after->calls - forward_before->calls, static_cast<unsigned long long>(kCalls));
  EXPECT_NE(entry(after, "cudnnGetConvolutionForwardAlgorithm_v7"), nullptr);
  // CTest has the double charge 200 us per legacy call and per plan execution (a micro-batch
  // runs as either); ucudnn's own work is far less.
  const char* cost = std::getenv("FAKECUDA_HOST_COST_US");
  ASSERT_NE(cost, nullptr) << "CTest sets FAKECUDA_HOST_COST_US";
  EXPECT_GE(forward_after->real_median_us, 190);
  EXPECT_GE(forward_after->median_us, forward_after->real_median_us * 0.97);
  EXPECT_LT(forward_after->own_median_us, 50);
  EXPECT_LE(forward_after->own_median_us, forward_after->own_p99_us);
  EXPECT_LE(forward_after->median_us, forward_after->p99_us);
}

TEST(HostTimeAccount, BadArgumentsAreBadParam) {
  GetAccount* get = account_function();
  ASSERT_NE(get, nullptr);
  UcudnnHostTime entries[2];
  int count = 0;
  EXPECT_EQ(get(entries, 2, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(get(nullptr, 2, &count), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(get(entries, -1, &count), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(get(entries, 0, &count), CUDNN_STATUS_SUCCESS);
}

}  // namespace
