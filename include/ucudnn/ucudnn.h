#pragma once
// ucudnn's link-time API: replace `cudnnHandle_t` by `UcudnnHandle_t`, include this header
// and link with -lucudnn. Every other cuDNN call stays as it is: the handle converts to
// cudnnHandle_t implicitly, and the convolution functions below are overloads taking it,
// so the same source calls ucudnn's planner instead of cuDNN's choice.
//
//   #include <ucudnn/ucudnn.h>
//   UcudnnHandle_t handle;          // was: cudnnHandle_t handle;
//   cudnnCreate(&handle);           // unchanged call, ucudnn's overload
//
// The convolution overloads take an optional trailing layer id: calls with different ids
// get plans (and WD workspace segments) of their own even when their shapes are equal.
// Options apply per handle and override the UCUDNN_* environment variables.
//
// Keep the handle a UcudnnHandle_t wherever convolutions are called: code that takes a plain
// cudnnHandle_t (a helper, a layer class) calls cuDNN's own functions, which know nothing of
// ucudnn (the virtual algorithm it selected is refused there with BAD_PARAM). Such code can wrap
// the handle it was given again, UcudnnHandle_t(handle), or take a UcudnnHandle_t. Do not put
// libucudnn_preload.so (LD_PRELOAD, scripts/ucudnn-run) under a program linked with -lucudnn:
// each would plan on its own.
//
// These C++ overloads need C++; the accounts (host_time_account.h, runtime_call_counts.h) are
// C headers as well.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>

#include "ucudnn/host_time_account.h"
#include "ucudnn/runtime_call_counts.h"

class UcudnnHandle_t {
 public:
  UcudnnHandle_t() = default;
  // Wraps a handle made by plain cudnnCreate (or by another library): its calls through this
  // wrapper are ucudnn's. Options set on it, and its plans, stay with the handle until
  // cudnnDestroy through a UcudnnHandle_t: destroy it so (cudnnDestroy(UcudnnHandle_t(h))), for
  // ucudnn keeps what it knows by the handle's address, and a handle cuDNN makes later at the
  // same address would take it over.
  explicit UcudnnHandle_t(cudnnHandle_t handle) : handle_(handle) {}
  operator cudnnHandle_t() const { return handle_; }  // NOLINT: implicit by design
  cudnnHandle_t get() const { return handle_; }

  // "all", "powerOfTwo" or "undivided" (without regard to case).
  cudnnStatus_t setBatchSizePolicy(const char* policy) const;
  // The per-kernel workspace limit (WR); 0 is a limit of 0 bytes (algorithms without workspace).
  cudnnStatus_t setWorkspaceLimit(std::size_t bytes) const;
  // One workspace of this size for all kernels of the handle (WD); 0 returns to WR.
  cudnnStatus_t setTotalWorkspaceSize(std::size_t bytes) const;
  // WD: divide the workspace now among the kernels called since the total was set, rather than
  // once an iteration is seen (kernels called before under WR are not among them). Without a
  // total there is nothing to divide: SUCCESS, with a warning.
  cudnnStatus_t optimize() const;

 private:
  cudnnHandle_t handle_ = nullptr;
};

// The database of benchmarks and plans for the whole process (as UCUDNN_DATABASE).
extern "C" cudnnStatus_t ucudnnSetDatabase(const char* path);

cudnnStatus_t cudnnCreate(UcudnnHandle_t* handle);
cudnnStatus_t cudnnDestroy(UcudnnHandle_t handle);

cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(UcudnnHandle_t handle, int* count);
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(UcudnnHandle_t handle, int* count);
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(UcudnnHandle_t handle, int* count);
cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults, std::int64_t layerId = -1);
cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionFwdAlgoPerf_t* perfResults, std::int64_t layerId = -1);
cudnnStatus_t cudnnFindConvolutionForwardAlgorithmEx(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t yDesc, void* y, const int requestedAlgoCount,
    int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,
    size_t workSpaceSizeInBytes, std::int64_t layerId = -1);
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,
    cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes, std::int64_t layerId = -1);
cudnnStatus_t cudnnConvolutionForward(
    UcudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes, const void* beta,
    const cudnnTensorDescriptor_t yDesc, void* y, std::int64_t layerId = -1);
// y = act(alpha1 * conv(x, w) + alpha2 * z + bias); with the virtual algorithm the
// convolution runs micro-batched, then cuDNN adds the bias and applies the activation.
cudnnStatus_t cudnnConvolutionBiasActivationForward(
    UcudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes,
    const void* alpha2, const cudnnTensorDescriptor_t zDesc, const void* z,
    const cudnnTensorDescriptor_t biasDesc, const void* bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc, void* y,
    std::int64_t layerId = -1);
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, std::int64_t layerId = -1);
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, std::int64_t layerId = -1);
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithmEx(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc, const void* w,
    const cudnnTensorDescriptor_t dyDesc, const void* dy,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc, void* dx,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes,
    std::int64_t layerId = -1);
cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    UcudnnHandle_t handle, const cudnnFilterDescriptor_t wDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnTensorDescriptor_t dxDesc, cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes,
    std::int64_t layerId = -1);
cudnnStatus_t cudnnConvolutionBackwardData(UcudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx,
                                           std::int64_t layerId = -1);
cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, std::int64_t layerId = -1);
cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithm(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t dwDesc, const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, std::int64_t layerId = -1);
cudnnStatus_t cudnnFindConvolutionBackwardFilterAlgorithmEx(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnTensorDescriptor_t dyDesc, const void* y,
    const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc, void* dw,
    const int requestedAlgoCount, int* returnedAlgoCount,
    cudnnConvolutionBwdFilterAlgoPerf_t* perfResults, void* workSpace, size_t workSpaceSizeInBytes,
    std::int64_t layerId = -1);
cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    UcudnnHandle_t handle, const cudnnTensorDescriptor_t xDesc,
    const cudnnTensorDescriptor_t dyDesc, const cudnnConvolutionDescriptor_t convDesc,
    const cudnnFilterDescriptor_t gradDesc, cudnnConvolutionBwdFilterAlgo_t algo,
    size_t* sizeInBytes, std::int64_t layerId = -1);
cudnnStatus_t cudnnConvolutionBackwardFilter(UcudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw,
                                             std::int64_t layerId = -1);
