#include "cudnn/convolution_calls.h"

#include <vector>

namespace ucudnn::cudnn {

namespace {
// Calls a resolved function, or reports NOT_INITIALIZED when the library lacks it: passing a
// call through needs only the function it calls.
template <typename Function, typename... Arguments>
cudnnStatus_t call(Function function, Arguments... arguments) {
  return function ? function(arguments...) : CUDNN_STATUS_NOT_INITIALIZED;
}
}  // namespace

cudnnStatus_t convolve(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                       int algorithm, const void* alpha, const ConvolutionDescriptors& d,
                       const ConvolutionBuffers& b, void* workspace, std::size_t bytes,
                       const void* beta) {
  switch (operation) {
    case Operation::kForward:
      return call(api.cudnnConvolutionForward, handle, alpha, d.x, b.x, d.w, b.w, d.convolution,
                  static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), workspace, bytes, beta, d.y,
                  b.y);
    case Operation::kBackwardData:
      return call(api.cudnnConvolutionBackwardData, handle, alpha, d.w, b.w, d.y, b.y,
                  d.convolution, static_cast<cudnnConvolutionBwdDataAlgo_t>(algorithm), workspace,
                  bytes, beta, d.x, b.x);
    case Operation::kBackwardFilter:
      return call(api.cudnnConvolutionBackwardFilter, handle, alpha, d.x, b.x, d.y, b.y,
                  d.convolution, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algorithm), workspace,
                  bytes, beta, d.w, b.w);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t workspace_size(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                             const ConvolutionDescriptors& d, int algorithm, std::size_t* bytes) {
  switch (operation) {
    case Operation::kForward:
      return call(api.cudnnGetConvolutionForwardWorkspaceSize, handle, d.x, d.w, d.convolution, d.y,
                  static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), bytes);
    case Operation::kBackwardData:
      return call(api.cudnnGetConvolutionBackwardDataWorkspaceSize, handle, d.w, d.y, d.convolution,
                  d.x, static_cast<cudnnConvolutionBwdDataAlgo_t>(algorithm), bytes);
    case Operation::kBackwardFilter:
      return call(api.cudnnGetConvolutionBackwardFilterWorkspaceSize, handle, d.x, d.y,
                  d.convolution, d.w, static_cast<cudnnConvolutionBwdFilterAlgo_t>(algorithm),
                  bytes);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t algorithm_max_count(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                  int* count) {
  switch (operation) {
    case Operation::kForward:
      return call(api.cudnnGetConvolutionForwardAlgorithmMaxCount, handle, count);
    case Operation::kBackwardData:
      return call(api.cudnnGetConvolutionBackwardDataAlgorithmMaxCount, handle, count);
    case Operation::kBackwardFilter:
      return call(api.cudnnGetConvolutionBackwardFilterAlgorithmMaxCount, handle, count);
  }
  return CUDNN_STATUS_BAD_PARAM;
}

namespace {

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

cudnnStatus_t select_algorithms(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                Selection selection, const ConvolutionDescriptors& d, int requested,
                                int* returned, AlgorithmPerf* results, const ConvolutionBuffers& b,
                                void* workspace, std::size_t bytes) {
  switch (operation) {
    case Operation::kForward:
      return collect<cudnnConvolutionFwdAlgoPerf_t>(
          requested, returned, results, [&](int n, int* count, cudnnConvolutionFwdAlgoPerf_t* p) {
            switch (selection) {
              case Selection::kHeuristic:
                return call(api.cudnnGetConvolutionForwardAlgorithm_v7, handle, d.x, d.w,
                            d.convolution, d.y, n, count, p);
              case Selection::kFind:
                return call(api.cudnnFindConvolutionForwardAlgorithm, handle, d.x, d.w,
                            d.convolution, d.y, n, count, p);
              default:
                return call(api.cudnnFindConvolutionForwardAlgorithmEx, handle, d.x, b.x, d.w, b.w,
                            d.convolution, d.y, b.y, n, count, p, workspace, bytes);
            }
          });
    case Operation::kBackwardData:
      return collect<cudnnConvolutionBwdDataAlgoPerf_t>(
          requested, returned, results,
          [&](int n, int* count, cudnnConvolutionBwdDataAlgoPerf_t* p) {
            switch (selection) {
              case Selection::kHeuristic:
                return call(api.cudnnGetConvolutionBackwardDataAlgorithm_v7, handle, d.w, d.y,
                            d.convolution, d.x, n, count, p);
              case Selection::kFind:
                return call(api.cudnnFindConvolutionBackwardDataAlgorithm, handle, d.w, d.y,
                            d.convolution, d.x, n, count, p);
              default:
                return call(api.cudnnFindConvolutionBackwardDataAlgorithmEx, handle, d.w, b.w, d.y,
                            b.y, d.convolution, d.x, b.x, n, count, p, workspace, bytes);
            }
          });
    case Operation::kBackwardFilter:
      return collect<cudnnConvolutionBwdFilterAlgoPerf_t>(
          requested, returned, results,
          [&](int n, int* count, cudnnConvolutionBwdFilterAlgoPerf_t* p) {
            switch (selection) {
              case Selection::kHeuristic:
                return call(api.cudnnGetConvolutionBackwardFilterAlgorithm_v7, handle, d.x, d.y,
                            d.convolution, d.w, n, count, p);
              case Selection::kFind:
                return call(api.cudnnFindConvolutionBackwardFilterAlgorithm, handle, d.x, d.y,
                            d.convolution, d.w, n, count, p);
              default:
                return call(api.cudnnFindConvolutionBackwardFilterAlgorithmEx, handle, d.x, b.x,
                            d.y, b.y, d.convolution, d.w, b.w, n, count, p, workspace, bytes);
            }
          });
  }
  return CUDNN_STATUS_BAD_PARAM;
}

}  // namespace ucudnn::cudnn
