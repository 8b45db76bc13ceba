// Every function libucudnn_preload.so exports, called as a framework would and as a buggy
// one might: the process runs with LD_PRELOAD at the shim and LD_LIBRARY_PATH at the cuDNN
// test doubles (CTest sets both), and checks that at start. Valid calls must keep cuDNN's
// contract with the virtual algorithm first; invalid ones must return a cuDNN error status,
// never crash.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "preloaded_convolution.h"
#include "support/random_seed.h"

namespace {

using namespace ucudnn::testing;

TEST_F(Preloaded, MaxCountsAddTheVirtualAlgorithm) {
  int ours = 0, theirs = 0;
  check(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &ours), "ours");
  check(real<decltype(cudnnGetConvolutionForwardAlgorithmMaxCount)>(
            "cudnnGetConvolutionForwardAlgorithmMaxCount")(handle, &theirs),
        "theirs");
  EXPECT_EQ(ours, theirs + 1);
  check(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &ours), "ours");
  EXPECT_EQ(ours, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT + 1);
  check(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &ours), "ours");
  EXPECT_EQ(ours, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT + 1);
  EXPECT_NE(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, nullptr), CUDNN_STATUS_SUCCESS);
  EXPECT_NE(cudnnGetConvolutionForwardAlgorithmMaxCount(nullptr, &ours), CUDNN_STATUS_SUCCESS);
}

TEST_F(Preloaded, GetV7PutsThePlanFirstAndCudnnsResultsAfterIt) {
  cudnnConvolutionFwdAlgoPerf_t ours[16], theirs[16];
  int returned = 0, their_count = 0;
  check(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 16, &returned, ours), "v7");
  check(real<decltype(cudnnGetConvolutionForwardAlgorithm_v7)>(
            "cudnnGetConvolutionForwardAlgorithm_v7")(handle, x, w, conv, y, 15, &their_count,
                                                      theirs),
        "their v7");
  ASSERT_EQ(returned, their_count + 1);
  EXPECT_EQ(ours[0].algo, kVirtualForward);
  EXPECT_EQ(ours[0].status, CUDNN_STATUS_SUCCESS);
  EXPECT_GT(ours[0].time, 0);
  EXPECT_EQ(ours[0].determinism, CUDNN_DETERMINISTIC);
  EXPECT_EQ(ours[0].mathType, CUDNN_DEFAULT_MATH);
  std::size_t planned = 0;
  check(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, kVirtualForward, &planned),
        "workspace of the plan");
  EXPECT_EQ(ours[0].memory, planned);
  for (int i = 0; i < their_count; ++i) {
    SCOPED_TRACE("result " + std::to_string(i));
    EXPECT_EQ(ours[i + 1].algo, theirs[i].algo);
    EXPECT_EQ(ours[i + 1].status, theirs[i].status);
    EXPECT_EQ(ours[i + 1].time, theirs[i].time);
    EXPECT_EQ(ours[i + 1].memory, theirs[i].memory);
    EXPECT_EQ(ours[i + 1].determinism, theirs[i].determinism);
    EXPECT_EQ(ours[i + 1].mathType, theirs[i].mathType);
  }
  // Asking for one result gives the plan alone.
  check(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 1, &returned, ours), "1");
  EXPECT_EQ(returned, 1);
  EXPECT_EQ(ours[0].algo, kVirtualForward);
  // A huge request is answered within what exists.
  std::vector<cudnnConvolutionFwdAlgoPerf_t> many(64);
  check(cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, INT_MAX, &returned,
                                               many.data()),
        "INT_MAX");
  EXPECT_EQ(returned, their_count + 1);
}
// The virtual algorithm passed without any Get/Find before: planned on first use, with the
// same result as cuDNN's undivided call, for every operation, with alpha and beta != 0, 1.
// The workspace given admits the fast algorithms only at half the batch, so the plans are
// micro-batched (the doubles' trace shows it): each slice gets alpha and beta, and
// BackwardFilter's later micro-batches accumulate.
TEST_F(Preloaded, VirtualAlgorithmWithoutGetOrFindPlansOnFirstUse) {
  ASSERT_TRUE(std::getenv("FAKECUDA_TRACE")) << "CTest sets FAKECUDA_TRACE";
  ucudnn::testing::SeededRandom random;
  const int n2 = 16, c2 = 32, k2 = 32, hw = 12;
  cudnnTensorDescriptor_t x2 = nullptr, y2 = nullptr;
  cudnnFilterDescriptor_t w2 = nullptr;
  check(cudnnCreateTensorDescriptor(&x2), "x2");
  check(cudnnCreateTensorDescriptor(&y2), "y2");
  check(cudnnCreateFilterDescriptor(&w2), "w2");
  check(cudnnSetTensor4dDescriptor(x2, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n2, c2, hw, hw), "x2");
  check(cudnnSetTensor4dDescriptor(y2, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n2, k2, hw, hw), "y2");
  check(cudnnSetFilter4dDescriptor(w2, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k2, c2, 3, 3), "w2");
  const std::size_t x_count = n2 * c2 * hw * hw, y_count = n2 * k2 * hw * hw, w_count = k2 * c2 * 9;
  void* x_data2 = device(x_count);
  void* y_data2 = device(y_count);
  void* w_data2 = device(w_count);
  fill(x_data2, x_count, random.engine());
  fill(w_data2, w_count, random.engine());
  fill(y_data2, y_count, random.engine());
  // Fits the cost model's non-fused Winograd at 8 images, not at 16.
  const std::size_t given = 2200 * 1024;
  const float alpha = 0.75f, beta = 0.5f;
  auto* direct_forward = real<decltype(cudnnConvolutionForward)>("cudnnConvolutionForward");
  auto* direct_data = real<decltype(cudnnConvolutionBackwardData)>("cudnnConvolutionBackwardData");
  auto* direct_filter =
      real<decltype(cudnnConvolutionBackwardFilter)>("cudnnConvolutionBackwardFilter");
  ASSERT_TRUE(direct_forward && direct_data && direct_filter);

  // Each operation twice (planning on the first call), against two undivided calls.
  auto compare = [&](const char* name, void* output, std::size_t count, auto direct, auto planned) {
    SCOPED_TRACE(name);
    void* expected = device(count);
    ASSERT_EQ(cudaMemcpy(expected, output, count * 4, cudaMemcpyDeviceToDevice), cudaSuccess);
    for (int i = 0; i < 2; ++i) check(direct(expected), "direct");
    check(planned(output), "planned, first call");
    const std::size_t before = trace_size();
    check(planned(output), "planned, second call");
    cudaDeviceSynchronize();
    const auto batches = traced_batches(before);
    ASSERT_GE(batches.size(), 2u) << "the plan should be micro-batched";
    long long covered = 0;
    for (auto b : batches) {
      EXPECT_LT(b, n2);
      covered += b;
    }
    EXPECT_EQ(covered, n2);
    EXPECT_LT(relative_error(read(output, count), read(expected, count)), 1e-5);
  };
  compare(
      "forward", y_data2, y_count,
      [&](void* out) {
        return direct_forward(handle, &alpha, x2, x_data2, w2, w_data2, conv,
                              CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &beta, y2, out);
      },
      [&](void* out) {
        return cudnnConvolutionForward(handle, &alpha, x2, x_data2, w2, w_data2, conv,
                                       kVirtualForward, workspace, given, &beta, y2, out);
      });
  compare(
      "backward data", x_data2, x_count,
      [&](void* out) {
        return direct_data(handle, &alpha, w2, w_data2, y2, y_data2, conv,
                           CUDNN_CONVOLUTION_BWD_DATA_ALGO_0, nullptr, 0, &beta, x2, out);
      },
      [&](void* out) {
        return cudnnConvolutionBackwardData(handle, &alpha, w2, w_data2, y2, y_data2, conv,
                                            kVirtualData, workspace, given, &beta, x2, out);
      });
  compare(
      "backward filter", w_data2, w_count,
      [&](void* out) {
        return direct_filter(handle, &alpha, x2, x_data2, y2, y_data2, conv,
                             CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0, nullptr, 0, &beta, w2, out);
      },
      [&](void* out) {
        return cudnnConvolutionBackwardFilter(handle, &alpha, x2, x_data2, y2, y_data2, conv,
                                              kVirtualFilter, workspace, given, &beta, w2, out);
      });
  cudnnDestroyTensorDescriptor(x2);
  cudnnDestroyTensorDescriptor(y2);
  cudnnDestroyFilterDescriptor(w2);
}

// A workspace smaller than the plan asked for: the shim re-plans within what it was given,
// and the result stays right; with no workspace at all, too.
TEST_F(Preloaded, SmallerWorkspaceThanPlannedReplansWithinIt) {
  ucudnn::testing::SeededRandom random;
  fill(x_data, n * c * 100, random.engine());
  fill(w_data, k * c * 9, random.engine());
  void* expected = device(n * k * 100);
  auto* direct_forward = real<decltype(cudnnConvolutionForward)>("cudnnConvolutionForward");
  check(direct_forward(handle, &one, x, x_data, w, w_data, conv,
                       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, y, expected),
        "direct");
  for (std::size_t bytes : {std::size_t{1} << 20, std::size_t{4096}, std::size_t{0}}) {
    SCOPED_TRACE("workspace " + std::to_string(bytes));
    check(cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv, kVirtualForward,
                                  bytes ? workspace : nullptr, bytes, &zero, y, y_data),
          "planned");
    cudaDeviceSynchronize();
    EXPECT_LT(relative_error(read(y_data, n * k * 100), read(expected, n * k * 100)), 1e-6);
  }
}

// A concrete algorithm passes through unchanged: the same status the doubles give.
TEST_F(Preloaded, ConcreteAlgorithmsPassThrough) {
  auto* direct_forward = real<decltype(cudnnConvolutionForward)>("cudnnConvolutionForward");
  for (int algorithm = 0; algorithm < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++algorithm) {
    const auto a = static_cast<cudnnConvolutionFwdAlgo_t>(algorithm);
    EXPECT_EQ(
        cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv, a, nullptr, 0, &zero, y,
                                y_data),
        direct_forward(handle, &one, x, x_data, w, w_data, conv, a, nullptr, 0, &zero, y, y_data))
        << "algorithm " << algorithm;
  }
}

TEST_F(Preloaded, DestroyForgetsTheHandleAndRejectsNull) {
  cudnnHandle_t second = nullptr;
  check(cudnnCreate(&second), "create");
  cudnnConvolutionFwdAlgoPerf_t perf[4];
  int returned = 0;
  check(cudnnGetConvolutionForwardAlgorithm_v7(second, x, w, conv, y, 4, &returned, perf), "v7");
  EXPECT_EQ(cudnnDestroy(second), CUDNN_STATUS_SUCCESS);
  EXPECT_NE(cudnnDestroy(nullptr), CUDNN_STATUS_SUCCESS);
}

}  // namespace
