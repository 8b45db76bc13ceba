#pragma once
// Host buffers sized for a problem's strided tensors (the largest offset + 1 elements).
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "core/convolution_problem.h"
#include "core/kernel_key.h"
#include "solver.h"

namespace ucudnn::cpu {

// Owns x, w and y for a problem, filled with uniform random values in [-1, 1].
class HostTensors {
 public:
  HostTensors(const ConvolutionProblem& problem, std::mt19937_64& random);
  Tensors tensors() { return {x_.data(), w_.data(), y_.data()}; }
  // The tensor `operation` writes (y, dx or dw), every element of its span, widened.
  std::vector<double> output_values(Operation operation, DataType type) const;

 private:
  std::vector<std::byte> x_, w_, y_;
};

}  // namespace ucudnn::cpu
