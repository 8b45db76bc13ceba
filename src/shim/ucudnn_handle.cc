// The UcudnnHandle_t front end (libucudnn.so): C++ overloads of cuDNN's convolution functions
// that forward to shim/legacy_api.h. No cudnn* C symbol is defined here, so linking this
// library never interposes on cuDNN by accident.
#include "ucudnn/ucudnn.h"

#include "shim/legacy_api.h"
#include "shim/options.h"

using namespace ucudnn::shim;

cudnnStatus_t UcudnnHandle_t::setBatchSizePolicy(const char* policy) const {
  return set_batch_size_policy(handle_, policy);
}
cudnnStatus_t UcudnnHandle_t::setWorkspaceLimit(std::size_t bytes) const {
  return set_workspace_limit(handle_, bytes);
}
cudnnStatus_t UcudnnHandle_t::setTotalWorkspaceSize(std::size_t bytes) const {
  return set_total_workspace_size(handle_, bytes);
}
cudnnStatus_t UcudnnHandle_t::optimize() const {
  return ucudnn::shim::optimize(handle_);
}

extern "C" cudnnStatus_t ucudnnSetDatabase(const char* path) {
  return set_database(path);
}

cudnnStatus_t cudnnCreate(UcudnnHandle_t* handle) {
  if (!handle) return CUDNN_STATUS_BAD_PARAM;
  cudnnHandle_t created = nullptr;
  const cudnnStatus_t status = create_handle(&created);
  if (status == CUDNN_STATUS_SUCCESS) *handle = UcudnnHandle_t(created);
  return status;
}

cudnnStatus_t cudnnDestroy(UcudnnHandle_t handle) {
  return destroy_handle(handle.get());
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(UcudnnHandle_t handle, int* count) {
  return legacy::forward_max_count(handle.get(), count);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(UcudnnHandle_t handle, int* count) {
  return legacy::backward_data_max_count(handle.get(), count);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(UcudnnHandle_t handle,
                                                                 int* count) {
  return legacy::backward_filter_max_count(handle.get(), count);
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults, std::int64_t layerId) {
  return legacy::forward_algorithm_v7(handle.get(), xDesc, wDesc, convDesc, yDesc,
                                      requestedAlgoCount, returnedAlgoCount, perfResults, layerId);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults, std::int64_t layerId) {
  return legacy::find_forward(handle.get(), xDesc, wDesc, convDesc, yDesc, requestedAlgoCount,
                              returnedAlgoCount, perfResults, layerId);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,
    size_t workSpaceSizeInBytes, std::int64_t layerId) {
  return legacy::find_forward_ex(handle.get(), xDesc, x, wDesc, w, convDesc, yDesc, y,
                                 requestedAlgoCount, returnedAlgoCount, perfResults, workSpace,
                                 workSpaceSizeInBytes, layerId);
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes, std::int64_t layerId) {
  return legacy::forward_workspace_size(handle.get(), xDesc, wDesc, convDesc, yDesc, algo,
                                        sizeInBytes, layerId);
}

cudnnStatus_t cudnnConvolutionForward(
    UcudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnTensorDescriptor_t yDesc, void* y, std::int64_t layerId) {
  return legacy::forward(handle.get(), alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace,
                         workSpaceSizeInBytes, beta, yDesc, y, layerId);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, std::int64_t layerId) {
  return legacy::backward_data_algorithm_v7(handle.get(), wDesc, dyDesc, convDesc, dxDesc,
                                            requestedAlgoCount, returnedAlgoCount, perfResults,
                                            layerId);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, std::int64_t layerId) {
  return legacy::find_backward_data(handle.get(), wDesc, dyDesc, convDesc, dxDesc,
                                    requestedAlgoCount, returnedAlgoCount, perfResults, layerId);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes,
    std::int64_t layerId) {
  return legacy::find_backward_data_ex(handle.get(), wDesc, w, dyDesc, dy, convDesc, dxDesc, dx,
                                       requestedAlgoCount, returnedAlgoCount, perfResults,
                                       workSpace, workSpaceSizeInBytes, layerId);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes,
    std::int64_t layerId) {
  return legacy::backward_data_workspace_size(handle.get(), wDesc, dyDesc, convDesc, dxDesc, algo,
                                              sizeInBytes, layerId);
}

cudnnStatus_t cudnnConvolutionBackwardData(UcudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx,
                                           std::int64_t layerId) {
  return legacy::backward_data(handle.get(), alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace,
                               workSpaceSizeInBytes, beta, dxDesc, dx, layerId);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, std::int64_t layerId) {
  return legacy::backward_filter_algorithm_v7(handle.get(), xDesc, dyDesc, convDesc, dwDesc,
                                              requestedAlgoCount, returnedAlgoCount, perfResults,
                                              layerId);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, std::int64_t layerId) {
  return legacy::find_backward_filter(handle.get(), xDesc, dyDesc, convDesc, dwDesc,
                                      requestedAlgoCount, returnedAlgoCount, perfResults, layerId);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* y,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes,
    std::int64_t layerId) {
  return legacy::find_backward_filter_ex(handle.get(), xDesc, x, dyDesc, y, convDesc, dwDesc, dw,
                                         requestedAlgoCount, returnedAlgoCount, perfResults,
                                         workSpace, workSpaceSizeInBytes, layerId);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t gradDesc, cudnnConvolutionBwdFilterAlgo_t algo,
    size_t* sizeInBytes, std::int64_t layerId) {
  return legacy::backward_filter_workspace_size(handle.get(), xDesc, dyDesc, convDesc, gradDesc,
                                                algo, sizeInBytes, layerId);
}

cudnnStatus_t cudnnConvolutionBackwardFilter(UcudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw,
                                             std::int64_t layerId) {
  return legacy::backward_filter(handle.get(), alpha, xDesc, x, dyDesc, dy, convDesc, algo,
                                 workSpace, workSpaceSizeInBytes, beta, dwDesc, dw, layerId);
}
