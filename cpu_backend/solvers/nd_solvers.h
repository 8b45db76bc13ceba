#pragma once
// The solvers of 1-d and 3-d convolutions (2-d problems have the specialized solvers of
// geometry.h), over GeometryNd. Their names end in "_ND".
#include "solver.h"

namespace ucudnn::cpu {

// "DIRECT_ND": the convolution as written, each output row accumulated in a buffer of its
// own, the innermost loop over a contiguous row within the range that needs no padding test;
// any layout, float and double, no workspace.
const Solver& direct_nd_solver();

// "LOWERING_ND": vol2col, Caffe's lowering in N dimensions: per image and group, the
// (C/g * filter volume) x (output volume) matrix, then one GEMM across the cores. Float,
// packed images and filter. Workspace: one lowered image (and one input image's sums for
// BackwardData).
const Solver& lowering_nd_solver();

// "WINOGRAD_F2_3_ND", "WINOGRAD_F4_3_ND": Winograd F(m, 3) along every spatial dimension
// (F(2x2x2, 3x3x3) and F(4x4x4, 3x3x3) in 3-d) with generated transforms
// (winograd_transforms.h); Forward and BackwardData, stride and dilation 1. Workspace: the
// transformed filter and a block of transformed tiles (about 4 MiB).
const Solver& winograd_f2_3_nd_solver();
const Solver& winograd_f4_3_nd_solver();

}  // namespace ucudnn::cpu
