#pragma once
// Every cuDNN function the LD_PRELOAD shim defines (preload.map exports exactly these, and a
// test holds the two lists equal): what the LD_AUDIT auditor (audit/cudnn_binding_auditor.cc)
// points at the shim whenever a program binds them to cuDNN by any other way.
// UCUDNN_INTERPOSED_FUNCTIONS(X) calls X(name) for each: the legacy ones, then the whole graph API.
#include "cudnn/backend_functions.h"

#define UCUDNN_INTERPOSED_FUNCTIONS(X)                  \
  X(cudnnGetConvolutionForwardAlgorithmMaxCount)        \
  X(cudnnGetConvolutionBackwardDataAlgorithmMaxCount)   \
  X(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount) \
  X(cudnnGetConvolutionForwardAlgorithm_v7)             \
  X(cudnnFindConvolutionForwardAlgorithm)               \
  X(cudnnFindConvolutionForwardAlgorithmEx)             \
  X(cudnnGetConvolutionForwardWorkspaceSize)            \
  X(cudnnConvolutionForward)                            \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)        \
  X(cudnnFindConvolutionBackwardDataAlgorithm)          \
  X(cudnnFindConvolutionBackwardDataAlgorithmEx)        \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)       \
  X(cudnnConvolutionBackwardData)                       \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)      \
  X(cudnnFindConvolutionBackwardFilterAlgorithm)        \
  X(cudnnFindConvolutionBackwardFilterAlgorithmEx)      \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize)     \
  X(cudnnConvolutionBackwardFilter)                     \
  X(cudnnConvolutionBiasActivationForward)              \
  X(cudnnCreate)                                        \
  X(cudnnDestroy)                                       \
  UCUDNN_CUDNN_BACKEND_FUNCTIONS(X)
