#pragma once
// The CUDA runtime functions ucudnn calls (device and pinned memory, streams, events, copies,
// host functions, device identity), resolved
// at run time from the libcudart the process uses, like the cuDNN table: ucudnn never links
// the runtime, so it loads beside any application and its test doubles.
#include <cuda_runtime_api.h>

#include <string>

#include "cudnn/function_table.h"

namespace ucudnn::cudnn {

#define UCUDNN_CUDA_FUNCTIONS(X) \
  X(cudaMalloc)                  \
  X(cudaFree)                    \
  X(cudaMemsetAsync)             \
  X(cudaMemGetInfo)              \
  X(cudaGetLastError)            \
  X(cudaGetErrorString)          \
  X(cudaGetDevice)               \
  X(cudaGetDeviceCount)          \
  X(cudaSetDevice)               \
  X(cudaGetDeviceProperties)     \
  X(cudaDeviceGetAttribute)      \
  X(cudaDriverGetVersion)        \
  X(cudaRuntimeGetVersion)       \
  X(cudaEventCreate)             \
  X(cudaEventDestroy)            \
  X(cudaEventRecord)             \
  X(cudaEventSynchronize)        \
  X(cudaEventElapsedTime)        \
  X(cudaStreamCreate)            \
  X(cudaStreamDestroy)           \
  X(cudaStreamSynchronize)       \
  X(cudaStreamWaitEvent)         \
  X(cudaStreamIsCapturing)       \
  X(cudaStreamCreateWithFlags)   \
  X(cudaEventCreateWithFlags)    \
  X(cudaHostAlloc)               \
  X(cudaFreeHost)                \
  X(cudaMemcpyAsync)             \
  X(cudaLaunchHostFunc)

UCUDNN_FUNCTION_TABLE(CudaRuntime, UCUDNN_CUDA_FUNCTIONS)

// Resolved once, on first use, thread-safely: libcudart.so.13 (anchor cudaMalloc).
const CudaRuntime& cuda_runtime();

}  // namespace ucudnn::cudnn
