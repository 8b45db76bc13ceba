// Get*_v7, Find*, Find*Ex and Get*WorkspaceSize on the cuDNN double answer exactly what
// cost_model.h says, in cuDNN's order, with every field set.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <set>

#include "cost_model.h"
#include "fakecuda_hooks.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::Descriptors;
using testing::DeviceBuffer;
using testing::Handle;

// One query's answer, whatever the operation's perf struct.
struct Answer {
  cudnnStatus_t status;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> results;  // fields copied from any perf struct
};

template <typename Perf>
std::vector<cudnnConvolutionFwdAlgoPerf_t> common(const std::vector<Perf>& perf, int count) {
  std::vector<cudnnConvolutionFwdAlgoPerf_t> out;
  for (int i = 0; i < count; ++i)
    out.push_back({static_cast<cudnnConvolutionFwdAlgo_t>(perf[i].algo),
                   perf[i].status,
                   perf[i].time,
                   perf[i].memory,
                   perf[i].determinism,
                   perf[i].mathType,
                   {}});
  return out;
}

enum class Kind { kV7, kFind, kFindEx };

// Asks the double through the entry point of `kind` for `operation`'s algorithms.
Answer ask(Kind kind, Operation operation, const Handle& handle, const Descriptors& d,
           int requested, std::size_t ex_workspace = 0) {
  int returned = -1;
  Answer answer{};
  DeviceBuffer x(1 << 20), w(1 << 20), y(1 << 20), workspace(ex_workspace ? ex_workspace : 1);
  switch (operation) {
    case Operation::kForward: {
      std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(16);
      answer.status =
          kind == Kind::kV7 ? cudnnGetConvolutionForwardAlgorithm_v7(
                                  handle, d.x, d.w, d.conv, d.y, requested, &returned, perf.data())
          : kind == Kind::kFind
              ? cudnnFindConvolutionForwardAlgorithm(handle, d.x, d.w, d.conv, d.y, requested,
                                                     &returned, perf.data())
              : cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, x.get(), d.w, w.get(), d.conv,
                                                       d.y, y.get(), requested, &returned,
                                                       perf.data(), workspace.get(), ex_workspace);
      if (answer.status == CUDNN_STATUS_SUCCESS) answer.results = common(perf, returned);
      break;
    }
    case Operation::kBackwardData: {
      std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(16);
      answer.status = kind == Kind::kV7
                          ? cudnnGetConvolutionBackwardDataAlgorithm_v7(
                                handle, d.w, d.y, d.conv, d.x, requested, &returned, perf.data())
                      : kind == Kind::kFind
                          ? cudnnFindConvolutionBackwardDataAlgorithm(
                                handle, d.w, d.y, d.conv, d.x, requested, &returned, perf.data())
                          : cudnnFindConvolutionBackwardDataAlgorithmEx(
                                handle, d.w, w.get(), d.y, y.get(), d.conv, d.x, x.get(), requested,
                                &returned, perf.data(), workspace.get(), ex_workspace);
      if (answer.status == CUDNN_STATUS_SUCCESS) answer.results = common(perf, returned);
      break;
    }
    case Operation::kBackwardFilter: {
      std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(16);
      answer.status = kind == Kind::kV7
                          ? cudnnGetConvolutionBackwardFilterAlgorithm_v7(
                                handle, d.x, d.y, d.conv, d.w, requested, &returned, perf.data())
                      : kind == Kind::kFind
                          ? cudnnFindConvolutionBackwardFilterAlgorithm(
                                handle, d.x, d.y, d.conv, d.w, requested, &returned, perf.data())
                          : cudnnFindConvolutionBackwardFilterAlgorithmEx(
                                handle, d.x, x.get(), d.y, y.get(), d.conv, d.w, w.get(), requested,
                                &returned, perf.data(), workspace.get(), ex_workspace);
      if (answer.status == CUDNN_STATUS_SUCCESS) answer.results = common(perf, returned);
      break;
    }
  }
  return answer;
}

cudnnStatus_t workspace_size(Operation operation, const Handle& handle, const Descriptors& d,
                             int algorithm, size_t* bytes) {
  switch (operation) {
    case Operation::kForward:
      return cudnnGetConvolutionForwardWorkspaceSize(
          handle, d.x, d.w, d.conv, d.y, static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), bytes);
    case Operation::kBackwardData:
      return cudnnGetConvolutionBackwardDataWorkspaceSize(
          handle, d.w, d.y, d.conv, d.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(algorithm),
          bytes);
    default:
      return cudnnGetConvolutionBackwardFilterWorkspaceSize(
          handle, d.x, d.y, d.conv, d.w, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algorithm),
          bytes);
  }
}

constexpr Operation kOperations[] = {Operation::kForward, Operation::kBackwardData,
                                     Operation::kBackwardFilter};

TEST(FakeCudnnQueries, MaxCountsAreCudnns) {
  Handle handle;
  int count = 0;
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 8);
  EXPECT_EQ(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &count), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 6);
  EXPECT_EQ(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &count),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(count, 7);
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithmMaxCount(nullptr, &count), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, nullptr), CUDNN_STATUS_BAD_PARAM);
}

// Every query kind lists each algorithm once: the modeled ones by modeled time with the
// model's numbers, then the rest as NOT_SUPPORTED; workspace sizes agree.
TEST(FakeCudnnQueries, AnswersAreTheCostModel) {
  ucudnn::testing::SeededRandom random;
  Handle handle;
  for (int trial = 0; trial < 30; ++trial) {
    ConvolutionProblem p = testing::random_problem(random);
    const bool tensor_op = random.chance(0.5);
    Descriptors d(p);
    if (tensor_op) {
      ASSERT_EQ(cudnnSetConvolutionMathType(d.conv, CUDNN_TENSOR_OP_MATH), 0);
    }
    for (Operation operation : kOperations) {
      const KernelKey key{operation, p};
      SCOPED_TRACE(key.to_string());
      const int count = algorithm_count(operation);
      for (Kind kind : {Kind::kV7, Kind::kFind}) {
        const Answer answer = ask(kind, operation, handle, d, count);
        ASSERT_EQ(answer.status, CUDNN_STATUS_SUCCESS);
        ASSERT_EQ(static_cast<int>(answer.results.size()), count);
        std::set<int> seen;
        bool unsupported_seen = false;
        float previous = 0;
        for (const auto& r : answer.results) {
          seen.insert(r.algo);
          const Modeled m = model(key, r.algo);
          EXPECT_EQ(r.mathType, tensor_op ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH);
          EXPECT_EQ(r.determinism, algorithm_model(operation, r.algo)->deterministic
                                       ? CUDNN_DETERMINISTIC
                                       : CUDNN_NON_DETERMINISTIC);
          if (m.supported) {
            EXPECT_FALSE(unsupported_seen) << "supported algorithm after an unsupported one";
            EXPECT_EQ(r.status, CUDNN_STATUS_SUCCESS);
            EXPECT_EQ(r.time, static_cast<float>(m.time_ms));
            EXPECT_EQ(r.memory, m.workspace_bytes);
            EXPECT_GE(r.time, previous);
            previous = r.time;
          } else {
            unsupported_seen = true;
            EXPECT_EQ(r.status, CUDNN_STATUS_NOT_SUPPORTED);
            EXPECT_EQ(r.time, -1);
            EXPECT_EQ(r.memory, 0u);
          }
          size_t bytes = 12345;
          const cudnnStatus_t status = workspace_size(operation, handle, d, r.algo, &bytes);
          if (m.supported) {
            EXPECT_EQ(status, CUDNN_STATUS_SUCCESS);
            EXPECT_EQ(bytes, m.workspace_bytes);
          } else {
            EXPECT_EQ(status, CUDNN_STATUS_NOT_SUPPORTED);
          }
        }
        EXPECT_EQ(static_cast<int>(seen.size()), count);
      }
    }
  }
}

TEST(FakeCudnnQueries, FewerRequestedGetsTheFastestFew) {
  Handle handle;
  const ConvolutionProblem p = make_conv2d_problem({8, 16, 14, 14, 32, 3, 3, 1, 1});
  Descriptors d(p);
  const Answer all = ask(Kind::kV7, Operation::kForward, handle, d, 8);
  const Answer two = ask(Kind::kV7, Operation::kForward, handle, d, 2);
  ASSERT_EQ(two.status, CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(two.results.size(), 2u);
  EXPECT_EQ(two.results[0].algo, all.results[0].algo);
  EXPECT_EQ(two.results[1].algo, all.results[1].algo);
  // Asking for more than there are returns all of them.
  EXPECT_EQ(ask(Kind::kV7, Operation::kForward, handle, d, 100).results.size(), 8u);
  EXPECT_EQ(ask(Kind::kV7, Operation::kForward, handle, d, 0).status, CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(ask(Kind::kFind, Operation::kForward, handle, d, -1).status, CUDNN_STATUS_BAD_PARAM);
}

// Find*Ex: what does not fit the given workspace comes after what does, NOT_SUPPORTED.
TEST(FakeCudnnQueries, FindExPutsWhatDoesNotFitAfterWhatFits) {
  Handle handle;
  const ConvolutionProblem p = make_conv2d_problem({8, 16, 14, 14, 32, 3, 3, 1, 1});
  Descriptors d(p);
  for (Operation operation : kOperations) {
    const KernelKey key{operation, p};
    const std::size_t limit = 4096;
    const Answer answer = ask(Kind::kFindEx, operation, handle, d, 16, limit);
    ASSERT_EQ(answer.status, CUDNN_STATUS_SUCCESS);
    int phase = 0;  // 0 fitting, 1 too large, 2 unsupported
    int fitting = 0;
    for (const auto& r : answer.results) {
      const Modeled m = model(key, r.algo);
      const int this_phase = !m.supported ? 2 : m.workspace_bytes <= limit ? 0 : 1;
      EXPECT_GE(this_phase, phase) << "algorithm " << r.algo;
      phase = this_phase;
      EXPECT_EQ(r.status, this_phase == 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED);
      if (this_phase == 0) ++fitting;
      if (this_phase == 1) {
        EXPECT_EQ(r.memory, m.workspace_bytes);
      }
    }
    EXPECT_GE(fitting, 1);  // the GEMM without workspace always fits
  }
}

TEST(FakeCudnnQueries, FindExChecksItsBuffers) {
  Handle handle;
  const ConvolutionProblem p = make_conv2d_problem({2, 3, 8, 8, 4, 3, 3, 1, 1});
  Descriptors d(p);
  DeviceBuffer x(4096), w(4096), y(4096), small(16);
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  int returned = 0;
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, nullptr, d.w, w.get(), d.conv, d.y,
                                                   y.get(), 8, &returned, perf, nullptr, 0),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, x.get(), d.w, w.get(), d.conv, d.y,
                                                   small.get(), 8, &returned, perf, nullptr, 0),
            CUDNN_STATUS_BAD_PARAM);  // y does not fit in its buffer
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, x.get(), d.w, w.get(), d.conv, d.y,
                                                   y.get(), 8, &returned, perf, small.get(), 1024),
            CUDNN_STATUS_BAD_PARAM);  // the workspace is smaller than claimed
  EXPECT_EQ(cudnnFindConvolutionForwardAlgorithmEx(handle, d.x, x.get(), d.w, w.get(), d.conv, d.y,
                                                   y.get(), 8, &returned, perf, nullptr, 0),
            CUDNN_STATUS_SUCCESS);
}

TEST(FakeCudnnQueries, FindComputesNothingAndTakesNoTime) {
  Handle handle;
  const ConvolutionProblem p = make_conv2d_problem({2, 3, 8, 8, 4, 3, 3, 1, 1});
  Descriptors d(p);
  for (Kind kind : {Kind::kV7, Kind::kFind, Kind::kFindEx})
    ASSERT_EQ(ask(kind, Operation::kForward, handle, d, 8, 1 << 20).status, CUDNN_STATUS_SUCCESS);
  double now = -1;
  ASSERT_EQ(fakecuda_stream_time(handle.stream(), &now), cudaSuccess);
  EXPECT_EQ(now, 0);
}

TEST(FakeCudnnQueries, WorkspaceSizeChecksTheAlgorithm) {
  Handle handle;
  const ConvolutionProblem p = make_conv2d_problem({2, 3, 8, 8, 4, 3, 3, 1, 1});
  Descriptors d(p);
  size_t bytes = 0;
  EXPECT_EQ(workspace_size(Operation::kForward, handle, d, 8, &bytes), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(workspace_size(Operation::kForward, handle, d, -1, &bytes), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(workspace_size(Operation::kForward, handle, d, 3, &bytes),  // DIRECT
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(workspace_size(Operation::kBackwardFilter, handle, d, 4, &bytes),  // WINOGRAD
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(workspace_size(Operation::kBackwardData, handle, d, 6, &bytes), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(workspace_size(Operation::kForward, handle, d, 0, nullptr), CUDNN_STATUS_BAD_PARAM);
}

// What cuDNN rejects: bad descriptors are BAD_PARAM, valid but unsupported ones NOT_SUPPORTED.
TEST(FakeCudnnQueries, DescriptorProblemsGetCudnnStatuses) {
  Handle handle;
  const ConvolutionProblem p = make_conv2d_problem({2, 4, 8, 8, 4, 3, 3, 1, 1});
  for (Operation operation : kOperations) {
    SCOPED_TRACE(std::string(name_of(operation)));
    {
      Descriptors d(p);  // y is 8x8, so a 5x5 y is not the output
      ASSERT_EQ(cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 4, 5, 5),
                0);
      EXPECT_EQ(ask(Kind::kV7, operation, handle, d, 8).status, CUDNN_STATUS_BAD_PARAM);
    }
    {
      Descriptors d(p);  // 4 input channels, 4 per group in the filter, 2 groups
      ASSERT_EQ(cudnnSetConvolutionGroupCount(d.conv, 2), 0);
      EXPECT_EQ(ask(Kind::kFind, operation, handle, d, 8).status, CUDNN_STATUS_BAD_PARAM);
    }
    {
      Descriptors d(p);  // float tensors, double filter
      ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NCHW, 4, 4, 3, 3),
                0);
      EXPECT_EQ(ask(Kind::kV7, operation, handle, d, 8).status, CUDNN_STATUS_BAD_PARAM);
    }
    {
      Descriptors d(p);  // bfloat16 data computed in half: no configuration of cuDNN's
      ASSERT_EQ(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_BFLOAT16, 2, 4, 8, 8),
                0);
      ASSERT_EQ(cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_BFLOAT16, 2, 4, 8, 8),
                0);
      ASSERT_EQ(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NCHW, 4, 4, 3, 3),
                0);
      ASSERT_EQ(cudnnSetConvolution2dDescriptor(d.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_HALF),
                0);
      EXPECT_EQ(ask(Kind::kV7, operation, handle, d, 8).status, CUDNN_STATUS_NOT_SUPPORTED);
    }
    {
      Descriptors d(p);
      cudnnTensorDescriptor_t unset = nullptr;
      ASSERT_EQ(cudnnCreateTensorDescriptor(&unset), 0);
      std::swap(d.x, unset);
      EXPECT_EQ(ask(Kind::kV7, operation, handle, d, 8).status, CUDNN_STATUS_BAD_PARAM);
      std::swap(d.x, unset);
      cudnnDestroyTensorDescriptor(unset);
    }
  }
  Descriptors d(p);
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  EXPECT_EQ(
      cudnnGetConvolutionForwardAlgorithm_v7(nullptr, d.x, d.w, d.conv, d.y, 8, &returned, perf),
      CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(
      cudnnGetConvolutionForwardAlgorithm_v7(handle, nullptr, d.w, d.conv, d.y, 8, &returned, perf),
      CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y, 8, nullptr, perf),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(
      cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y, 8, &returned, nullptr),
      CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
}  // namespace ucudnn::fakecuda
