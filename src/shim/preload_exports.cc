// The LD_PRELOAD front end: cuDNN's legacy convolution functions under their own names,
// exported with the symbol version "libcudnn.so.9" (preload.map) so that an unmodified
// application linked with -lcudnn binds to these. Nothing that cuDNN's own libraries call
// back (descriptor setters, cudnnGetStream) is exported. Each forwards to shim/legacy_api.h.
#include <cudnn.h>

#include "shim/interposer.h"
#include "shim/legacy_api.h"

using namespace ucudnn::shim;

extern "C" {

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle,
                                                                      int* count) {
  return legacy::forward_max_count(handle, count);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle,
                                                                           int* count) {
  return legacy::backward_data_max_count(handle, count);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle,
                                                                             int* count) {
  return legacy::backward_filter_max_count(handle, count);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return legacy::forward_algorithm_v7(handle, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount,
                                      returnedAlgoCount, perfResults, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return legacy::find_forward(handle, xDesc, wDesc, convDesc, yDesc, requestedAlgoCount,
                              returnedAlgoCount, perfResults, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,
    size_t workSpaceSizeInBytes) {
  return legacy::find_forward_ex(handle, xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount,
                                 returnedAlgoCount, perfResults, workSpace, workSpaceSizeInBytes,
                                 kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  return legacy::forward_workspace_size(handle, xDesc, wDesc, convDesc, yDesc, algo, sizeInBytes,
                                        kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionForward(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnTensorDescriptor_t yDesc, void* y) {
  return legacy::forward(handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace,
                         workSpaceSizeInBytes, beta, yDesc, y, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return legacy::backward_data_algorithm_v7(handle, wDesc, dyDesc, convDesc, dxDesc,
                                            requestedAlgoCount, returnedAlgoCount, perfResults,
                                            kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithm(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return legacy::find_backward_data(handle, wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount,
                                    returnedAlgoCount, perfResults, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  return legacy::find_backward_data_ex(handle, wDesc, w, dyDesc, dy, convDesc, dxDesc, dx,
                                       requestedAlgoCount, returnedAlgoCount, perfResults,
                                       workSpace, workSpaceSizeInBytes, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  return legacy::backward_data_workspace_size(handle, wDesc, dyDesc, convDesc, dxDesc, algo,
                                              sizeInBytes, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void* alpha, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdDataAlgo_t algo,
    void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnTensorDescriptor_t dxDesc, void* dx) {
  return legacy::backward_data(handle, alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace,
                               workSpaceSizeInBytes, beta, dxDesc, dx, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return legacy::backward_filter_algorithm_v7(handle, xDesc, dyDesc, convDesc, dwDesc,
                                              requestedAlgoCount, returnedAlgoCount, perfResults,
                                              kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return legacy::find_backward_filter(handle, xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount,
                                      returnedAlgoCount, perfResults, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* y,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace,
    size_t workSpaceSizeInBytes) {
  return legacy::find_backward_filter_ex(handle, xDesc, x, dyDesc, y, convDesc, dwDesc, dw,
                                         requestedAlgoCount, returnedAlgoCount, perfResults,
                                         workSpace, workSpaceSizeInBytes, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes) {
  return legacy::backward_filter_workspace_size(handle, xDesc, dyDesc, convDesc, gradDesc, algo,
                                                sizeInBytes, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnConvolutionBackwardFilter(
    cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdFilterAlgo_t algo,
    void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnFilterDescriptor_t dwDesc, void* dw) {
  return legacy::backward_filter(handle, alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace,
                                 workSpaceSizeInBytes, beta, dwDesc, dw, kNoLayer);
}

cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle) {
  return destroy_handle(handle);
}

}  // extern "C"
