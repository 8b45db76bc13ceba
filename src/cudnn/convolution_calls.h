#pragma once
// cuDNN's legacy convolution API with the operation as a value: the three operations take
// their descriptors and buffers in different orders and their results in different structs;
// here they take one order (x = input or dx, w = filter or dw, y = output or dy) and one
// result type, and call the real library through the resolved table.
#include <cudnn.h>

#include <cstddef>

#include "core/kernel_key.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

struct ConvolutionDescriptors {
  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t convolution = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
};

// Forward reads x, w and writes y; BackwardData reads w, y (dy) and writes x (dx);
// BackwardFilter reads x, y (dy) and writes w (dw).
struct ConvolutionBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

// The fields of cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t, the algorithm as an int.
struct AlgorithmPerf {
  int algorithm = 0;
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  float time = 0;
  std::size_t memory = 0;
  cudnnDeterminism_t determinism = CUDNN_NON_DETERMINISTIC;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
};

template <typename Perf>
AlgorithmPerf from_cudnn(const Perf& perf) {
  return {static_cast<int>(perf.algo),
          perf.status,
          perf.time,
          perf.memory,
          perf.determinism,
          perf.mathType};
}
template <typename Perf>
Perf to_cudnn_perf(const AlgorithmPerf& perf) {
  Perf out{};
  out.algo = static_cast<decltype(out.algo)>(perf.algorithm);
  out.status = perf.status;
  out.time = perf.time;
  out.memory = perf.memory;
  out.determinism = perf.determinism;
  out.mathType = perf.math_type;
  return out;
}

cudnnStatus_t convolve(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                       int algorithm, const void* alpha, const ConvolutionDescriptors& d,
                       const ConvolutionBuffers& buffers, void* workspace, std::size_t bytes,
                       const void* beta);

cudnnStatus_t workspace_size(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                             const ConvolutionDescriptors& d, int algorithm, std::size_t* bytes);

cudnnStatus_t algorithm_max_count(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                  int* count);

// How cuDNN ranks algorithms: heuristics (Get*_v7), or measurement (Find*, Find*Ex on the
// caller's buffers and workspace).
enum class Selection { kHeuristic, kFind, kFindEx };

cudnnStatus_t select_algorithms(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                Selection selection, const ConvolutionDescriptors& d, int requested,
                                int* returned, AlgorithmPerf* results,
                                const ConvolutionBuffers& buffers = {}, void* workspace = nullptr,
                                std::size_t bytes = 0);

}  // namespace ucudnn::cudnn
