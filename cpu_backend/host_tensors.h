#pragma once
// Host buffers sized for a problem's strided tensors (the largest offset + 1 elements).
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "core/convolution_problem.h"
#include "solver.h"

namespace ucudnn::cpu {

// Owns x, w and y for a problem, filled with uniform random values in [-1, 1].
class HostTensors {
 public:
  HostTensors(const ConvolutionProblem& problem, std::mt19937_64& random);
  Tensors tensors() { return {x_.data(), w_.data(), y_.data()}; }

 private:
  std::vector<std::byte> x_, w_, y_;
};

}  // namespace ucudnn::cpu
