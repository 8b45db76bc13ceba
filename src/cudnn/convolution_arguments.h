#pragma once
// The arguments of cuDNN's legacy convolution functions with the operation as a value: the
// three operations take their descriptors and buffers in different orders and their results
// in different structs; here they take one order (x = input or dx, w = filter or dw, y =
// output or dy) and one result type. Apart from the resolved function table
// (cudnn_api.h), so that code declaring UcudnnHandle_t's overloads of those functions can
// use them.
#include <cudnn.h>

#include <cstddef>

namespace ucudnn::cudnn {

struct ConvolutionDescriptors {
  cudnnTensorDescriptor_t x = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t convolution = nullptr;
  cudnnTensorDescriptor_t y = nullptr;
  friend bool operator==(const ConvolutionDescriptors&, const ConvolutionDescriptors&) = default;
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

// How cuDNN ranks algorithms: heuristics (Get*_v7), or measurement (Find*, Find*Ex on the
// caller's buffers and workspace).
enum class Selection { kHeuristic, kFind, kFindEx };

}  // namespace ucudnn::cudnn
