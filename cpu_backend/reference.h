#pragma once
// The naive convolution, accumulated in float64, for float and double tensors and for half and
// bfloat16 ones (read as float, each result rounded once to its type): the yardstick every
// solver is tested against (and what the cuDNN test doubles compute). Slow on purpose: the
// formula as written, nothing clever.
#include "solver.h"

namespace ucudnn::cpu {

// 1-, 2- or 3-d, float, double, half or bfloat16: what reference_convolution computes.
bool is_reference_problem(const ConvolutionProblem& problem);

void reference_convolution(const KernelKey& kernel, const Tensors& tensors, Scaling scaling);

}  // namespace ucudnn::cpu
