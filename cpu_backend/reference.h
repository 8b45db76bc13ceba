#pragma once
// The naive convolution, accumulated in float64, for float and double tensors: the yardstick
// every solver is tested against (and what the cuDNN test doubles compute). Slow on purpose:
// the formula as written, nothing clever.
#include "solver.h"

namespace ucudnn::cpu {

void reference_convolution(const KernelKey& kernel, const Tensors& tensors, Scaling scaling);

}  // namespace ucudnn::cpu
