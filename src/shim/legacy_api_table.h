#pragma once
// cuDNN's legacy convolution API as one table: each function once, with its parameters as
// cudnn.h declares them (after the handle) and what it does on the shim. The front ends
// expand it: the LD_PRELOAD exports (preload_exports.cc, layer kNoLayer) and UcudnnHandle_t's
// overloads (ucudnn_handle.cc, a trailing layer id). Adding a function is one entry here,
// its declaration in include/ucudnn/ucudnn.h (documentation for users), and its symbol in
// preload.map. The compiler checks each export against cudnn.h, and -Wmissing-declarations
// each overload against ucudnn.h.
//
// UCUDNN_LEGACY_API(HANDLE, LAYER) calls
//   HANDLE(name, (parameters), (arguments), call)  for a function of the handle alone (no layer
//                                                  id),
//   LAYER(name, (parameters), (arguments), call)   for a function of one convolution layer,
// where `arguments` names the parameters in order (to pass the call on as it came) and `call`
// may use the parameters, `handle` (a cudnnHandle_t) and `layer`.
#include <cudnn.h>

#include "shim/legacy_api.h"

#define UCUDNN_LEGACY_API(HANDLE, LAYER)                                                           \
  HANDLE(cudnnGetConvolutionForwardAlgorithmMaxCount, (int* count), (count),                       \
         algorithm_max_count(Operation::kForward, handle, count))                                  \
  HANDLE(cudnnGetConvolutionBackwardDataAlgorithmMaxCount, (int* count), (count),                  \
         algorithm_max_count(Operation::kBackwardData, handle, count))                             \
  HANDLE(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount, (int* count), (count),                \
         algorithm_max_count(Operation::kBackwardFilter, handle, count))                           \
                                                                                                   \
  LAYER(cudnnGetConvolutionForwardAlgorithm_v7,                                                    \
        (const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,                 \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,         \
         const int requestedAlgoCount, int* returnedAlgoCount,                                     \
         cudnnConvolutionFwdAlgoPerf_t* perfResults),                                              \
        (xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount, perfResults),       \
        legacy::find(Operation::kForward, cudnn::Selection::kHeuristic, handle,                    \
                     {xDesc, wDesc, convDesc, yDesc}, requestedAlgoCount, returnedAlgoCount,       \
                     perfResults, {}, nullptr, 0, layer))                                          \
  LAYER(cudnnFindConvolutionForwardAlgorithm,                                                      \
        (const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,                 \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,         \
         const int requestedAlgoCount, int* returnedAlgoCount,                                     \
         cudnnConvolutionFwdAlgoPerf_t* perfResults),                                              \
        (xDesc, wDesc, convDesc, yDesc, requestedAlgoCount, returnedAlgoCount, perfResults),       \
        legacy::find(Operation::kForward, cudnn::Selection::kFind, handle,                         \
                     {xDesc, wDesc, convDesc, yDesc}, requestedAlgoCount, returnedAlgoCount,       \
                     perfResults, {}, nullptr, 0, layer))                                          \
  LAYER(                                                                                           \
      cudnnFindConvolutionForwardAlgorithmEx,                                                      \
      (const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnFilterDescriptor_t wDesc,    \
       const void* w, const cudnnConvolutionDescriptor_t convDesc,                                 \
       const cudnnTensorDescriptor_t yDesc, void* y, const int requestedAlgoCount,                 \
       int* returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t* perfResults, void* workSpace,        \
       size_t workSpaceSizeInBytes),                                                               \
      (xDesc, x, wDesc, w, convDesc, yDesc, y, requestedAlgoCount, returnedAlgoCount, perfResults, \
       workSpace, workSpaceSizeInBytes),                                                           \
      legacy::find(Operation::kForward, cudnn::Selection::kFindEx, handle,                         \
                   {xDesc, wDesc, convDesc, yDesc}, requestedAlgoCount, returnedAlgoCount,         \
                   perfResults, legacy::buffers(x, w, y), workSpace, workSpaceSizeInBytes, layer)) \
  LAYER(cudnnGetConvolutionForwardWorkspaceSize,                                                   \
        (const cudnnTensorDescriptor_t xDesc, const cudnnFilterDescriptor_t wDesc,                 \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t yDesc,         \
         cudnnConvolutionFwdAlgo_t algo, size_t* sizeInBytes),                                     \
        (xDesc, wDesc, convDesc, yDesc, algo, sizeInBytes),                                        \
        workspace_size(Operation::kForward, handle, {xDesc, wDesc, convDesc, yDesc}, algo,         \
                       sizeInBytes, layer))                                                        \
  LAYER(cudnnConvolutionForward,                                                                   \
        (const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,                    \
         const cudnnFilterDescriptor_t wDesc, const void* w,                                       \
         const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,              \
         void* workSpace, size_t workSpaceSizeInBytes, const void* beta,                           \
         const cudnnTensorDescriptor_t yDesc, void* y),                                            \
        (alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, yDesc,  \
         y),                                                                                       \
        convolution(Operation::kForward, handle, alpha, {xDesc, wDesc, convDesc, yDesc},           \
                    legacy::buffers(x, w, y), algo, workSpace, workSpaceSizeInBytes, beta, layer)) \
                                                                                                   \
  LAYER(cudnnGetConvolutionBackwardDataAlgorithm_v7,                                               \
        (const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,                \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,        \
         const int requestedAlgoCount, int* returnedAlgoCount,                                     \
         cudnnConvolutionBwdDataAlgoPerf_t* perfResults),                                          \
        (wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount, returnedAlgoCount, perfResults),     \
        legacy::find(Operation::kBackwardData, cudnn::Selection::kHeuristic, handle,               \
                     {dxDesc, wDesc, convDesc, dyDesc}, requestedAlgoCount, returnedAlgoCount,     \
                     perfResults, {}, nullptr, 0, layer))                                          \
  LAYER(cudnnFindConvolutionBackwardDataAlgorithm,                                                 \
        (const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,                \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,        \
         const int requestedAlgoCount, int* returnedAlgoCount,                                     \
         cudnnConvolutionBwdDataAlgoPerf_t* perfResults),                                          \
        (wDesc, dyDesc, convDesc, dxDesc, requestedAlgoCount, returnedAlgoCount, perfResults),     \
        legacy::find(Operation::kBackwardData, cudnn::Selection::kFind, handle,                    \
                     {dxDesc, wDesc, convDesc, dyDesc}, requestedAlgoCount, returnedAlgoCount,     \
                     perfResults, {}, nullptr, 0, layer))                                          \
  LAYER(cudnnFindConvolutionBackwardDataAlgorithmEx,                                               \
        (const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnTensorDescriptor_t dyDesc, \
         const void* dy, const cudnnConvolutionDescriptor_t convDesc,                              \
         const cudnnTensorDescriptor_t dxDesc, void* dx, const int requestedAlgoCount,             \
         int* returnedAlgoCount, cudnnConvolutionBwdDataAlgoPerf_t* perfResults, void* workSpace,  \
         size_t workSpaceSizeInBytes),                                                             \
        (wDesc, w, dyDesc, dy, convDesc, dxDesc, dx, requestedAlgoCount, returnedAlgoCount,        \
         perfResults, workSpace, workSpaceSizeInBytes),                                            \
        legacy::find(Operation::kBackwardData, cudnn::Selection::kFindEx, handle,                  \
                     {dxDesc, wDesc, convDesc, dyDesc}, requestedAlgoCount, returnedAlgoCount,     \
                     perfResults, legacy::buffers(dx, w, dy), workSpace, workSpaceSizeInBytes,     \
                     layer))                                                                       \
  LAYER(cudnnGetConvolutionBackwardDataWorkspaceSize,                                              \
        (const cudnnFilterDescriptor_t wDesc, const cudnnTensorDescriptor_t dyDesc,                \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnTensorDescriptor_t dxDesc,        \
         cudnnConvolutionBwdDataAlgo_t algo, size_t* sizeInBytes),                                 \
        (wDesc, dyDesc, convDesc, dxDesc, algo, sizeInBytes),                                      \
        workspace_size(Operation::kBackwardData, handle, {dxDesc, wDesc, convDesc, dyDesc}, algo,  \
                       sizeInBytes, layer))                                                        \
  LAYER(                                                                                           \
      cudnnConvolutionBackwardData,                                                                \
      (const void* alpha, const cudnnFilterDescriptor_t wDesc, const void* w,                      \
       const cudnnTensorDescriptor_t dyDesc, const void* dy,                                       \
       const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdDataAlgo_t algo,            \
       void* workSpace, size_t workSpaceSizeInBytes, const void* beta,                             \
       const cudnnTensorDescriptor_t dxDesc, void* dx),                                            \
      (alpha, wDesc, w, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dxDesc, \
       dx),                                                                                        \
      convolution(Operation::kBackwardData, handle, alpha, {dxDesc, wDesc, convDesc, dyDesc},      \
                  legacy::buffers(dx, w, dy), algo, workSpace, workSpaceSizeInBytes, beta, layer)) \
                                                                                                   \
  LAYER(cudnnGetConvolutionBackwardFilterAlgorithm_v7,                                             \
        (const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,                \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,        \
         const int requestedAlgoCount, int* returnedAlgoCount,                                     \
         cudnnConvolutionBwdFilterAlgoPerf_t* perfResults),                                        \
        (xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount, returnedAlgoCount, perfResults),     \
        legacy::find(Operation::kBackwardFilter, cudnn::Selection::kHeuristic, handle,             \
                     {xDesc, dwDesc, convDesc, dyDesc}, requestedAlgoCount, returnedAlgoCount,     \
                     perfResults, {}, nullptr, 0, layer))                                          \
  LAYER(cudnnFindConvolutionBackwardFilterAlgorithm,                                               \
        (const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,                \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t dwDesc,        \
         const int requestedAlgoCount, int* returnedAlgoCount,                                     \
         cudnnConvolutionBwdFilterAlgoPerf_t* perfResults),                                        \
        (xDesc, dyDesc, convDesc, dwDesc, requestedAlgoCount, returnedAlgoCount, perfResults),     \
        legacy::find(Operation::kBackwardFilter, cudnn::Selection::kFind, handle,                  \
                     {xDesc, dwDesc, convDesc, dyDesc}, requestedAlgoCount, returnedAlgoCount,     \
                     perfResults, {}, nullptr, 0, layer))                                          \
  LAYER(cudnnFindConvolutionBackwardFilterAlgorithmEx,                                             \
        (const cudnnTensorDescriptor_t xDesc, const void* x, const cudnnTensorDescriptor_t dyDesc, \
         const void* y, const cudnnConvolutionDescriptor_t convDesc,                               \
         const cudnnFilterDescriptor_t dwDesc, void* dw, const int requestedAlgoCount,             \
         int* returnedAlgoCount, cudnnConvolutionBwdFilterAlgoPerf_t* perfResults,                 \
         void* workSpace, size_t workSpaceSizeInBytes),                                            \
        (xDesc, x, dyDesc, y, convDesc, dwDesc, dw, requestedAlgoCount, returnedAlgoCount,         \
         perfResults, workSpace, workSpaceSizeInBytes),                                            \
        legacy::find(Operation::kBackwardFilter, cudnn::Selection::kFindEx, handle,                \
                     {xDesc, dwDesc, convDesc, dyDesc}, requestedAlgoCount, returnedAlgoCount,     \
                     perfResults, legacy::buffers(x, dw, y), workSpace, workSpaceSizeInBytes,      \
                     layer))                                                                       \
  LAYER(cudnnGetConvolutionBackwardFilterWorkspaceSize,                                            \
        (const cudnnTensorDescriptor_t xDesc, const cudnnTensorDescriptor_t dyDesc,                \
         const cudnnConvolutionDescriptor_t convDesc, const cudnnFilterDescriptor_t gradDesc,      \
         cudnnConvolutionBwdFilterAlgo_t algo, size_t* sizeInBytes),                               \
        (xDesc, dyDesc, convDesc, gradDesc, algo, sizeInBytes),                                    \
        workspace_size(Operation::kBackwardFilter, handle, {xDesc, gradDesc, convDesc, dyDesc},    \
                       algo, sizeInBytes, layer))                                                  \
  LAYER(                                                                                           \
      cudnnConvolutionBackwardFilter,                                                              \
      (const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,                      \
       const cudnnTensorDescriptor_t dyDesc, const void* dy,                                       \
       const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionBwdFilterAlgo_t algo,          \
       void* workSpace, size_t workSpaceSizeInBytes, const void* beta,                             \
       const cudnnFilterDescriptor_t dwDesc, void* dw),                                            \
      (alpha, xDesc, x, dyDesc, dy, convDesc, algo, workSpace, workSpaceSizeInBytes, beta, dwDesc, \
       dw),                                                                                        \
      convolution(Operation::kBackwardFilter, handle, alpha, {xDesc, dwDesc, convDesc, dyDesc},    \
                  legacy::buffers(x, dw, dy), algo, workSpace, workSpaceSizeInBytes, beta, layer)) \
                                                                                                   \
  LAYER(                                                                                           \
      cudnnConvolutionBiasActivationForward,                                                       \
      (const void* alpha1, const cudnnTensorDescriptor_t xDesc, const void* x,                     \
       const cudnnFilterDescriptor_t wDesc, const void* w,                                         \
       const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,                \
       void* workSpace, size_t workSpaceSizeInBytes, const void* alpha2,                           \
       const cudnnTensorDescriptor_t zDesc, const void* z, const cudnnTensorDescriptor_t biasDesc, \
       const void* bias, const cudnnActivationDescriptor_t activationDesc,                         \
       const cudnnTensorDescriptor_t yDesc, void* y),                                              \
      (alpha1, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceSizeInBytes, alpha2, zDesc, \
       z, biasDesc, bias, activationDesc, yDesc, y),                                               \
      convolution_bias_activation(handle, alpha1, {xDesc, wDesc, convDesc, yDesc},                 \
                                  legacy::buffers(x, w, y), algo, workSpace, workSpaceSizeInBytes, \
                                  {alpha2, zDesc, z, biasDesc, bias, activationDesc}, layer))

// The parameter list of an entry without its parentheses.
#define UCUDNN_PARAMETERS(...) __VA_ARGS__
