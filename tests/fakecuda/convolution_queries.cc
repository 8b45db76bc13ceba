// The cuDNN double's legacy algorithm queries: the maximum count, Get*_v7, Find* and Find*Ex
// (ranked by cost_model.h, nothing computed; Find*Ex checks its buffers as a convolution does),
// and workspace sizes. They answer after the same checks as a convolution call
// (convolution_calls.h).
#include <cudnn.h>

#include <cstddef>
#include <optional>
#include <string>

#include "algorithm_ranking.h"
#include "convolution_calls.h"
#include "cost_model.h"
#include "cudnn_session.h"
#include "descriptors.h"
#include "fakecuda_hooks.h"
#include "guarded_call.h"
#include "trace.h"

using namespace ucudnn;
using namespace ucudnn::fakecuda;

namespace {

template <typename Perf>
cudnnStatus_t query(const char* function, const char* kind, cudnnHandle_t handle,
                    Operation operation, const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                    const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y, int requested,
                    int* returned, Perf* results,
                    std::optional<std::size_t> workspace_limit = std::nullopt,
                    std::optional<ConvolutionPointers> buffers = std::nullopt,
                    const void* workspace = nullptr) {
  return guarded(function, [&] {
    if (requested <= 0 || !returned || !results)
      return fail(CUDNN_STATUS_BAD_PARAM, function,
                  "requestedAlgoCount must be positive, returnedAlgoCount and perfResults set");
    KernelOrStatus k = checked_kernel(handle, operation, x, w, conv, y);
    if (k.status != CUDNN_STATUS_SUCCESS) return fail(k.status, function, k.problem);
    if (buffers) {
      if (!buffers->x || !buffers->w || !buffers->y)
        return fail(CUDNN_STATUS_BAD_PARAM, function, "a data pointer is null");
      if (auto outside = outside_allocations(k.kernel, *buffers, x, w, y))
        return fail(CUDNN_STATUS_BAD_PARAM, function, *outside, true);
      if (*workspace_limit > 0 && !workspace)
        return fail(CUDNN_STATUS_BAD_PARAM, function, "workSpace is null, its size is not 0");
      if (*workspace_limit > 0 && !fakecuda_find_allocation(workspace, *workspace_limit))
        return fail(CUDNN_STATUS_BAD_PARAM, function,
                    not_allocated("workspace", workspace, *workspace_limit), true);
    }
    fill_perf_results(rank_algorithms(k.kernel, workspace_limit), conv->math_type, requested,
                      returned, results);
    trace_line("select kind=%s op=%s n=%lld", kind, operation_name(operation),
               static_cast<long long>(k.kernel.problem.batch()));
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t workspace_size(const char* function, cudnnHandle_t handle, Operation operation,
                             const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                             const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y,
                             int algorithm, size_t* size) {
  return guarded(function, [&] {
    if (!size) return fail(CUDNN_STATUS_BAD_PARAM, function, "sizeInBytes is null");
    KernelOrStatus k = checked_kernel(handle, operation, x, w, conv, y);
    if (k.status != CUDNN_STATUS_SUCCESS) return fail(k.status, function, k.problem);
    if (!algorithm_model(operation, algorithm))
      return fail(CUDNN_STATUS_BAD_PARAM, function,
                  "algorithm " + std::to_string(algorithm) + " is not an enum value");
    const Modeled m = model(k.kernel, algorithm);
    if (!m.supported)
      return fail(CUDNN_STATUS_NOT_SUPPORTED, function,
                  "algorithm " + std::to_string(algorithm) + " does not apply");
    *size = static_cast<size_t>(m.workspace_bytes);
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t max_count(cudnnHandle_t handle, int* count, Operation operation) {
  if (!alive(handle) || !count) return CUDNN_STATUS_BAD_PARAM;
  *count = algorithm_count(operation);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return max_count(handle, count, kForward);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return max_count(handle, count, kBackwardData);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(cudnnHandle_t handle, int* count) {
  return max_count(handle, count, kBackwardFilter);
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
    const cudnnFilterDescriptor_t filterDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t destDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return query(__func__, "v7", handle, kForward, srcDesc, filterDesc, convDesc, destDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t filterDesc,
    const cudnnTensorDescriptor_t diffDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t gradDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return query(__func__, "v7", handle, kBackwardData, gradDesc, filterDesc, convDesc, diffDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t srcDesc,
    const cudnnTensorDescriptor_t diffDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t gradDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return query(__func__, "v7", handle, kBackwardFilter, srcDesc, gradDesc, convDesc, diffDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults) {
  return query(__func__, "find", handle, kForward, xDesc, wDesc, convDesc, yDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults) {
  return query(__func__, "find", handle, kBackwardData, dxDesc, wDesc, convDesc, dyDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults) {
  return query(__func__, "find", handle, kBackwardFilter, xDesc, dwDesc, convDesc, dyDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults);
}

cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,
    size_t workSpaceSizeInBytes) {
  return query(__func__, "findex", handle, kForward, xDesc, wDesc, convDesc, yDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults, workSpaceSizeInBytes,
               ConvolutionPointers{x, w, y}, workSpace);
}

cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes) {
  return query(__func__, "findex", handle, kBackwardData, dxDesc, wDesc, convDesc, dyDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults, workSpaceSizeInBytes,
               ConvolutionPointers{dx, w, dy}, workSpace);
}

cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* y,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace,
    size_t workSpaceSizeInBytes) {
  return query(__func__, "findex", handle, kBackwardFilter, xDesc, dwDesc, convDesc, dyDesc,
               requestedAlgoCount, returnedAlgoCount, perfResults, workSpaceSizeInBytes,
               ConvolutionPointers{x, dw, y}, workSpace);
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes) {
  return workspace_size(__func__, handle, kForward, xDesc, wDesc, convDesc, yDesc, algo,
                        sizeInBytes);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,
    cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes) {
  return workspace_size(__func__, handle, kBackwardData, dxDesc, wDesc, convDesc, dyDesc, algo,
                        sizeInBytes);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes) {
  return workspace_size(__func__, handle, kBackwardFilter, xDesc, gradDesc, convDesc, dyDesc, algo,
                        sizeInBytes);
}

}  // extern "C"
