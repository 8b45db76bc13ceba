#pragma once
// The 2-d direct solver: the convolution's loops as written.
#include "solver.h"

namespace ucudnn::cpu {

// "DIRECT": loops over the convolution as written, no workspace; every 2-d problem, every
// layout, float and double. The solver that always applies.
const Solver& direct_solver();

}  // namespace ucudnn::cpu
