#include "cudnn/convolution_calls.h"

#include <vector>

#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

namespace {

// The three operations' functions take their descriptors in one pattern: two inputs, the
// convolution, the output. Each operation is one row naming its functions, types and which
// descriptor plays which role; every call below is written once, against a row.
struct ForwardRow {  // x, w -> y
  using Algorithm = cudnnConvolutionFwdAlgo_t;
  using Perf = cudnnConvolutionFwdAlgoPerf_t;
  static constexpr auto run = &CudnnApi::cudnnConvolutionForward;
  static constexpr auto workspace_size = &CudnnApi::cudnnGetConvolutionForwardWorkspaceSize;
  static constexpr auto max_count = &CudnnApi::cudnnGetConvolutionForwardAlgorithmMaxCount;
  static constexpr auto heuristic = &CudnnApi::cudnnGetConvolutionForwardAlgorithm_v7;
  static constexpr auto find = &CudnnApi::cudnnFindConvolutionForwardAlgorithm;
  static constexpr auto find_ex = &CudnnApi::cudnnFindConvolutionForwardAlgorithmEx;
  static constexpr auto first = &ConvolutionDescriptors::x;
  static constexpr auto second = &ConvolutionDescriptors::w;
  static constexpr auto output = &ConvolutionDescriptors::y;
  static constexpr auto first_buffer = &ConvolutionBuffers::x;
  static constexpr auto second_buffer = &ConvolutionBuffers::w;
  static constexpr auto output_buffer = &ConvolutionBuffers::y;
};

struct BackwardDataRow {  // w, dy -> dx
  using Algorithm = cudnnConvolutionBwdDataAlgo_t;
  using Perf = cudnnConvolutionBwdDataAlgoPerf_t;
  static constexpr auto run = &CudnnApi::cudnnConvolutionBackwardData;
  static constexpr auto workspace_size = &CudnnApi::cudnnGetConvolutionBackwardDataWorkspaceSize;
  static constexpr auto max_count = &CudnnApi::cudnnGetConvolutionBackwardDataAlgorithmMaxCount;
  static constexpr auto heuristic = &CudnnApi::cudnnGetConvolutionBackwardDataAlgorithm_v7;
  static constexpr auto find = &CudnnApi::cudnnFindConvolutionBackwardDataAlgorithm;
  static constexpr auto find_ex = &CudnnApi::cudnnFindConvolutionBackwardDataAlgorithmEx;
  static constexpr auto first = &ConvolutionDescriptors::w;
  static constexpr auto second = &ConvolutionDescriptors::y;
  static constexpr auto output = &ConvolutionDescriptors::x;
  static constexpr auto first_buffer = &ConvolutionBuffers::w;
  static constexpr auto second_buffer = &ConvolutionBuffers::y;
  static constexpr auto output_buffer = &ConvolutionBuffers::x;
};

struct BackwardFilterRow {  // x, dy -> dw
  using Algorithm = cudnnConvolutionBwdFilterAlgo_t;
  using Perf = cudnnConvolutionBwdFilterAlgoPerf_t;
  static constexpr auto run = &CudnnApi::cudnnConvolutionBackwardFilter;
  static constexpr auto workspace_size = &CudnnApi::cudnnGetConvolutionBackwardFilterWorkspaceSize;
  static constexpr auto max_count = &CudnnApi::cudnnGetConvolutionBackwardFilterAlgorithmMaxCount;
  static constexpr auto heuristic = &CudnnApi::cudnnGetConvolutionBackwardFilterAlgorithm_v7;
  static constexpr auto find = &CudnnApi::cudnnFindConvolutionBackwardFilterAlgorithm;
  static constexpr auto find_ex = &CudnnApi::cudnnFindConvolutionBackwardFilterAlgorithmEx;
  static constexpr auto first = &ConvolutionDescriptors::x;
  static constexpr auto second = &ConvolutionDescriptors::y;
  static constexpr auto output = &ConvolutionDescriptors::w;
  static constexpr auto first_buffer = &ConvolutionBuffers::x;
  static constexpr auto second_buffer = &ConvolutionBuffers::y;
  static constexpr auto output_buffer = &ConvolutionBuffers::w;
};

// Calls `body` with the operation's row; the only switch over operations in this file.
template <typename Body>
cudnnStatus_t with_row(Operation operation, Body body) {
  switch (operation) {
    case Operation::kForward:
      return body(ForwardRow{});
    case Operation::kBackwardData:
      return body(BackwardDataRow{});
    case Operation::kBackwardFilter:
      return body(BackwardFilterRow{});
  }
  return CUDNN_STATUS_BAD_PARAM;
}

// Calls a resolved function, or reports NOT_INITIALIZED when the library lacks it: passing a
// call through needs only the function it calls.
template <typename Function, typename... Arguments>
cudnnStatus_t call(Function function, Arguments... arguments) {
  const RealCallScope real;
  return function ? function(arguments...) : CUDNN_STATUS_NOT_INITIALIZED;
}

// Calls `select` with an array of the operation's perf struct and converts the results.
template <typename Perf, typename Select>
cudnnStatus_t collect(int requested, int* returned, AlgorithmPerf* results, Select select) {
  if (requested <= 0 || !returned || !results) return select(requested, returned, nullptr);
  std::vector<Perf> perf(static_cast<std::size_t>(requested));
  const cudnnStatus_t status = select(requested, returned, perf.data());
  if (status == CUDNN_STATUS_SUCCESS)
    for (int i = 0; i < *returned && i < requested; ++i) results[i] = from_cudnn(perf[i]);
  return status;
}

}  // namespace

cudnnStatus_t convolve(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                       int algorithm, const void* alpha, const ConvolutionDescriptors& d,
                       const ConvolutionBuffers& b, void* workspace, std::size_t bytes,
                       const void* beta) {
  return with_row(operation, [&](auto row) {
    using Row = decltype(row);
    return call(api.*Row::run, handle, alpha, d.*Row::first, b.*Row::first_buffer, d.*Row::second,
                b.*Row::second_buffer, d.convolution,
                static_cast<typename Row::Algorithm>(algorithm), workspace, bytes, beta,
                d.*Row::output, b.*Row::output_buffer);
  });
}

cudnnStatus_t workspace_size(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                             const ConvolutionDescriptors& d, int algorithm, std::size_t* bytes) {
  return with_row(operation, [&](auto row) {
    using Row = decltype(row);
    return call(api.*Row::workspace_size, handle, d.*Row::first, d.*Row::second, d.convolution,
                d.*Row::output, static_cast<typename Row::Algorithm>(algorithm), bytes);
  });
}

cudnnStatus_t algorithm_max_count(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                  int* count) {
  return with_row(operation, [&](auto row) {
    using Row = decltype(row);
    return call(api.*Row::max_count, handle, count);
  });
}

cudnnStatus_t select_algorithms(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                Selection selection, const ConvolutionDescriptors& d, int requested,
                                int* returned, AlgorithmPerf* results, const ConvolutionBuffers& b,
                                void* workspace, std::size_t bytes) {
  return with_row(operation, [&](auto row) {
    using Row = decltype(row);
    using Perf = typename Row::Perf;
    return collect<Perf>(requested, returned, results, [&](int n, int* count, Perf* perf) {
      switch (selection) {
        case Selection::kHeuristic:
          return call(api.*Row::heuristic, handle, d.*Row::first, d.*Row::second, d.convolution,
                      d.*Row::output, n, count, perf);
        case Selection::kFind:
          return call(api.*Row::find, handle, d.*Row::first, d.*Row::second, d.convolution,
                      d.*Row::output, n, count, perf);
        case Selection::kFindEx:
          return call(api.*Row::find_ex, handle, d.*Row::first, b.*Row::first_buffer,
                      d.*Row::second, b.*Row::second_buffer, d.convolution, d.*Row::output,
                      b.*Row::output_buffer, n, count, perf, workspace, bytes);
      }
      return CUDNN_STATUS_BAD_PARAM;
    });
  });
}

}  // namespace ucudnn::cudnn
