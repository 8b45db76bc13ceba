#pragma once
// A convolution as a finalized operation graph of cuDNN's graph API, built by ucudnn from the
// planner's problem: what heuristics are asked about and what engine plans are made from. The
// tensors keep the problem's dimensions and strides (a micro-batch's graph is the problem
// with_batch(b)), so that micro-batch i runs on pointer offsets into the caller's tensors. The
// scaling factors are part of an operation in the graph API, so a graph is made for one pair.
#include <cudnn.h>

#include <cstdint>

#include "core/convolution_problem.h"
#include "core/kernel_key.h"
#include "cudnn/backend_descriptor.h"

namespace ucudnn::cudnn {

// The unique ids of the three tensors in graphs ucudnn makes: private to them, but unlike the
// ones applications pick ('x', 1, ...), so that a trace tells ucudnn's executions apart.
struct GraphTensorIds {
  static constexpr std::int64_t x = 'u' * 256 + 'x';  // 30072: x, or dx for BackwardData
  static constexpr std::int64_t w = 'u' * 256 + 'w';  // w, or dw for BackwardFilter
  static constexpr std::int64_t y = 'u' * 256 + 'y';  // y, or dy for both backward operations
};

class ConvolutionGraph {
 public:
  // Throws std::runtime_error naming what cuDNN refused (or that the library has no graph API).
  ConvolutionGraph(cudnnHandle_t handle, Operation operation, const ConvolutionProblem& problem,
                   double alpha, double beta);

  cudnnBackendDescriptor_t get() const { return graph_.get(); }
  // The byte alignment the graph promises for x and y (the caller's pointers at every
  // micro-batch offset must have it) and for w.
  std::int64_t sliced_alignment() const { return sliced_alignment_; }
  std::int64_t filter_alignment() const { return filter_alignment_; }

 private:
  std::int64_t sliced_alignment_ = 1, filter_alignment_ = 1;
  BackendDescriptor x_, w_, y_, convolution_, operation_, graph_;
};

// Whether the pointer has the alignment (a power of two).
inline bool aligned(const void* pointer, std::int64_t alignment) {
  return reinterpret_cast<std::uintptr_t>(pointer) % static_cast<std::uintptr_t>(alignment) == 0;
}

}  // namespace ucudnn::cudnn
