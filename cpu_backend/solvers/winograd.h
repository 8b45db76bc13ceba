#pragma once
// The 2-d Winograd solvers for 3x3 filters.
#include "solver.h"

namespace ucudnn::cpu {

// Non-fused Winograd F(m x m, 3 x 3) (Lavin & Gray; the batched-GEMM form of Budden et
// al.): the filter, every input tile of the (micro-)batch and the products are transformed
// into the workspace, with one GEMM per tile position, (K/g x C/g) x (C/g x tiles).
// Workspace grows with the batch. Float, 2-d, 3x3, stride 1, dilation 1, x and y images
// packed CHW, filter packed KCRS, any padding and groups; Forward, and BackwardData when
// the padding is at most 2 (it runs as a forward convolution of dy).
const Solver& winograd_f2x2_3x3_solver();  // "WINOGRAD_F2X2_3X3"
const Solver& winograd_f4x4_3x3_solver();  // "WINOGRAD_F4X4_3X3"

}  // namespace ucudnn::cpu
