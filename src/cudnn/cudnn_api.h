#pragma once
// The cuDNN functions ucudnn calls, resolved at run time and never linked: the shim must
// reach the real library without re-entering its own exported symbols, and ucudnn must
// load where cuDNN came in RTLD_LOCAL through a plugin (the Python case). Each function is
// found by the one rule of runtime_library.h: from the first object after ucudnn that defines
// it (another tool's wrapper, else cuDNN), else from the library loaded as libcudnn.so.9, never
// from ucudnn itself.
#include <cudnn.h>

#include <string>

#include "cudnn/function_table.h"

namespace ucudnn::cudnn {

#define UCUDNN_CUDNN_FUNCTIONS(X)                       \
  X(cudnnGetVersion)                                    \
  X(cudnnGetErrorString)                                \
  X(cudnnCreateTensorDescriptor)                        \
  X(cudnnDestroyTensorDescriptor)                       \
  X(cudnnSetTensorNdDescriptor)                         \
  X(cudnnGetTensorNdDescriptor)                         \
  X(cudnnCreateFilterDescriptor)                        \
  X(cudnnDestroyFilterDescriptor)                       \
  X(cudnnSetFilterNdDescriptor)                         \
  X(cudnnGetFilterNdDescriptor)                         \
  X(cudnnCreateConvolutionDescriptor)                   \
  X(cudnnDestroyConvolutionDescriptor)                  \
  X(cudnnSetConvolutionNdDescriptor)                    \
  X(cudnnSetConvolutionGroupCount)                      \
  X(cudnnSetConvolutionMathType)                        \
  X(cudnnSetConvolutionReorderType)                     \
  X(cudnnGetConvolutionNdDescriptor)                    \
  X(cudnnGetConvolutionGroupCount)                      \
  X(cudnnGetConvolutionMathType)                        \
  X(cudnnGetConvolutionReorderType)                     \
  X(cudnnCreate)                                        \
  X(cudnnDestroy)                                       \
  X(cudnnSetStream)                                     \
  X(cudnnGetStream)                                     \
  X(cudnnConvolutionForward)                            \
  X(cudnnConvolutionBackwardData)                       \
  X(cudnnConvolutionBackwardFilter)                     \
  X(cudnnGetConvolutionForwardWorkspaceSize)            \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)       \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize)     \
  X(cudnnGetConvolutionForwardAlgorithmMaxCount)        \
  X(cudnnGetConvolutionBackwardDataAlgorithmMaxCount)   \
  X(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount) \
  X(cudnnGetConvolutionForwardAlgorithm_v7)             \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)        \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)      \
  X(cudnnFindConvolutionForwardAlgorithm)               \
  X(cudnnFindConvolutionBackwardDataAlgorithm)          \
  X(cudnnFindConvolutionBackwardFilterAlgorithm)        \
  X(cudnnFindConvolutionForwardAlgorithmEx)             \
  X(cudnnFindConvolutionBackwardDataAlgorithmEx)        \
  X(cudnnFindConvolutionBackwardFilterAlgorithmEx)      \
  X(cudnnConvolutionBiasActivationForward)              \
  X(cudnnAddTensor)                                     \
  X(cudnnTransformTensor)                               \
  X(cudnnActivationForward)                             \
  X(cudnnGetActivationDescriptor)

UCUDNN_FUNCTION_TABLE(CudnnApi, UCUDNN_CUDNN_FUNCTIONS)

// Resolved once, on first use, thread-safely. Functions not found are null and named in
// `missing`; callers fall back or report CUDNN_STATUS_NOT_INITIALIZED.
const CudnnApi& cudnn_api();

// A symbol of the cuDNN library the tables are resolved from; nullptr when absent.
void* cudnn_symbol(const char* name);
// cuDNN's own definition of `name`, past any tool between ucudnn and cuDNN; nullptr when absent.
void* cudnn_own_symbol(const char* name);

}  // namespace ucudnn::cudnn
