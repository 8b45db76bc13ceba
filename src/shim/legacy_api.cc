#include "shim/legacy_api.h"

#include <algorithm>
#include <vector>

#include "shim/interposer.h"

namespace ucudnn::shim::legacy {

namespace {

using cudnn::ConvolutionBuffers;
using cudnn::ConvolutionDescriptors;
using cudnn::Selection;

constexpr int kMaxResults = 64;

// Runs the interposer on generic results and converts them to the operation's struct.
template <typename Perf>
cudnnStatus_t find_into(Operation operation, Selection selection, cudnnHandle_t handle,
                        const ConvolutionDescriptors& d, int requested, int* returned,
                        Perf* results, const ConvolutionBuffers& buffers, void* workspace,
                        std::size_t bytes, std::int64_t layer) {
  const int capacity = std::clamp(requested, 0, kMaxResults);
  cudnn::AlgorithmPerf generic[kMaxResults];
  int count = 0;
  const cudnnStatus_t status = find_algorithms(
      operation, selection, handle, d, requested > 0 ? capacity : requested,
      returned ? &count : nullptr, results ? generic : nullptr, buffers, workspace, bytes, layer);
  if (status == CUDNN_STATUS_SUCCESS && returned && results) {
    count = std::min(count, capacity);
    for (int i = 0; i < count; ++i) results[i] = cudnn::to_cudnn_perf<Perf>(generic[i]);
    *returned = count;
  }
  return status;
}

void* mutable_pointer(const void* pointer) {
  return const_cast<void*>(pointer);
}

}  // namespace

cudnnStatus_t forward_max_count(cudnnHandle_t handle, int* count) {
  return algorithm_max_count(Operation::kForward, handle, count);
}
cudnnStatus_t backward_data_max_count(cudnnHandle_t handle, int* count) {
  return algorithm_max_count(Operation::kBackwardData, handle, count);
}
cudnnStatus_t backward_filter_max_count(cudnnHandle_t handle, int* count) {
  return algorithm_max_count(Operation::kBackwardFilter, handle, count);
}

cudnnStatus_t forward_algorithm_v7(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                   cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                   cudnnTensorDescriptor_t y, int requested, int* returned,
                                   cudnnConvolutionFwdAlgoPerf_t* results, std::int64_t layer) {
  return find_into(Operation::kForward, Selection::kHeuristic, handle, {x, w, conv, y}, requested,
                   returned, results, {}, nullptr, 0, layer);
}
cudnnStatus_t find_forward(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                           cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                           cudnnTensorDescriptor_t y, int requested, int* returned,
                           cudnnConvolutionFwdAlgoPerf_t* results, std::int64_t layer) {
  return find_into(Operation::kForward, Selection::kFind, handle, {x, w, conv, y}, requested,
                   returned, results, {}, nullptr, 0, layer);
}
cudnnStatus_t find_forward_ex(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, const void* x,
                              cudnnFilterDescriptor_t wd, const void* w,
                              cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t yd,
                              void* y, int requested, int* returned,
                              cudnnConvolutionFwdAlgoPerf_t* results, void* workspace,
                              std::size_t bytes, std::int64_t layer) {
  return find_into(Operation::kForward, Selection::kFindEx, handle, {xd, wd, conv, yd}, requested,
                   returned, results, {mutable_pointer(x), mutable_pointer(w), y}, workspace, bytes,
                   layer);
}
cudnnStatus_t forward_workspace_size(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                     cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                     cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t algo,
                                     std::size_t* bytes, std::int64_t layer) {
  return workspace_size(Operation::kForward, handle, {x, w, conv, y}, algo, bytes, layer);
}
cudnnStatus_t forward(cudnnHandle_t handle, const void* alpha, cudnnTensorDescriptor_t xd,
                      const void* x, cudnnFilterDescriptor_t wd, const void* w,
                      cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
                      void* workspace, std::size_t bytes, const void* beta,
                      cudnnTensorDescriptor_t yd, void* y, std::int64_t layer) {
  return convolution(Operation::kForward, handle, alpha, {xd, wd, conv, yd},
                     {mutable_pointer(x), mutable_pointer(w), y}, algo, workspace, bytes, beta,
                     layer);
}

cudnnStatus_t backward_data_algorithm_v7(cudnnHandle_t handle, cudnnFilterDescriptor_t w,
                                         cudnnTensorDescriptor_t dy,
                                         cudnnConvolutionDescriptor_t conv,
                                         cudnnTensorDescriptor_t dx, int requested, int* returned,
                                         cudnnConvolutionBwdDataAlgoPerf_t* results,
                                         std::int64_t layer) {
  return find_into(Operation::kBackwardData, Selection::kHeuristic, handle, {dx, w, conv, dy},
                   requested, returned, results, {}, nullptr, 0, layer);
}
cudnnStatus_t find_backward_data(cudnnHandle_t handle, cudnnFilterDescriptor_t w,
                                 cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t conv,
                                 cudnnTensorDescriptor_t dx, int requested, int* returned,
                                 cudnnConvolutionBwdDataAlgoPerf_t* results, std::int64_t layer) {
  return find_into(Operation::kBackwardData, Selection::kFind, handle, {dx, w, conv, dy}, requested,
                   returned, results, {}, nullptr, 0, layer);
}
cudnnStatus_t find_backward_data_ex(cudnnHandle_t handle, cudnnFilterDescriptor_t wd, const void* w,
                                    cudnnTensorDescriptor_t dyd, const void* dy,
                                    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dxd,
                                    void* dx, int requested, int* returned,
                                    cudnnConvolutionBwdDataAlgoPerf_t* results, void* workspace,
                                    std::size_t bytes, std::int64_t layer) {
  return find_into(Operation::kBackwardData, Selection::kFindEx, handle, {dxd, wd, conv, dyd},
                   requested, returned, results, {dx, mutable_pointer(w), mutable_pointer(dy)},
                   workspace, bytes, layer);
}
cudnnStatus_t backward_data_workspace_size(cudnnHandle_t handle, cudnnFilterDescriptor_t w,
                                           cudnnTensorDescriptor_t dy,
                                           cudnnConvolutionDescriptor_t conv,
                                           cudnnTensorDescriptor_t dx,
                                           cudnnConvolutionBwdDataAlgo_t algo, std::size_t* bytes,
                                           std::int64_t layer) {
  return workspace_size(Operation::kBackwardData, handle, {dx, w, conv, dy}, algo, bytes, layer);
}
cudnnStatus_t backward_data(cudnnHandle_t handle, const void* alpha, cudnnFilterDescriptor_t wd,
                            const void* w, cudnnTensorDescriptor_t dyd, const void* dy,
                            cudnnConvolutionDescriptor_t conv, cudnnConvolutionBwdDataAlgo_t algo,
                            void* workspace, std::size_t bytes, const void* beta,
                            cudnnTensorDescriptor_t dxd, void* dx, std::int64_t layer) {
  return convolution(Operation::kBackwardData, handle, alpha, {dxd, wd, conv, dyd},
                     {dx, mutable_pointer(w), mutable_pointer(dy)}, algo, workspace, bytes, beta,
                     layer);
}

cudnnStatus_t backward_filter_algorithm_v7(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                           cudnnTensorDescriptor_t dy,
                                           cudnnConvolutionDescriptor_t conv,
                                           cudnnFilterDescriptor_t dw, int requested, int* returned,
                                           cudnnConvolutionBwdFilterAlgoPerf_t* results,
                                           std::int64_t layer) {
  return find_into(Operation::kBackwardFilter, Selection::kHeuristic, handle, {x, dw, conv, dy},
                   requested, returned, results, {}, nullptr, 0, layer);
}
cudnnStatus_t find_backward_filter(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                   cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t conv,
                                   cudnnFilterDescriptor_t dw, int requested, int* returned,
                                   cudnnConvolutionBwdFilterAlgoPerf_t* results,
                                   std::int64_t layer) {
  return find_into(Operation::kBackwardFilter, Selection::kFind, handle, {x, dw, conv, dy},
                   requested, returned, results, {}, nullptr, 0, layer);
}
cudnnStatus_t find_backward_filter_ex(cudnnHandle_t handle, cudnnTensorDescriptor_t xd,
                                      const void* x, cudnnTensorDescriptor_t dyd, const void* dy,
                                      cudnnConvolutionDescriptor_t conv,
                                      cudnnFilterDescriptor_t dwd, void* dw, int requested,
                                      int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* results,
                                      void* workspace, std::size_t bytes, std::int64_t layer) {
  return find_into(Operation::kBackwardFilter, Selection::kFindEx, handle, {xd, dwd, conv, dyd},
                   requested, returned, results, {mutable_pointer(x), dw, mutable_pointer(dy)},
                   workspace, bytes, layer);
}
cudnnStatus_t backward_filter_workspace_size(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                             cudnnTensorDescriptor_t dy,
                                             cudnnConvolutionDescriptor_t conv,
                                             cudnnFilterDescriptor_t dw,
                                             cudnnConvolutionBwdFilterAlgo_t algo,
                                             std::size_t* bytes, std::int64_t layer) {
  return workspace_size(Operation::kBackwardFilter, handle, {x, dw, conv, dy}, algo, bytes, layer);
}
cudnnStatus_t backward_filter(cudnnHandle_t handle, const void* alpha, cudnnTensorDescriptor_t xd,
                              const void* x, cudnnTensorDescriptor_t dyd, const void* dy,
                              cudnnConvolutionDescriptor_t conv,
                              cudnnConvolutionBwdFilterAlgo_t algo, void* workspace,
                              std::size_t bytes, const void* beta, cudnnFilterDescriptor_t dwd,
                              void* dw, std::int64_t layer) {
  return convolution(Operation::kBackwardFilter, handle, alpha, {xd, dwd, conv, dyd},
                     {mutable_pointer(x), dw, mutable_pointer(dy)}, algo, workspace, bytes, beta,
                     layer);
}

}  // namespace ucudnn::shim::legacy
