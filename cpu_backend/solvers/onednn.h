#pragma once
// oneDNN's CPU convolutions as solvers, float32 problems in 1 to 3 spatial dimensions (C3D's
// 3x3x3 layers as well as 2-d images), all three operations:
// "ONEDNN_DIRECT" (oneDNN's direct JIT kernels, never its GEMM ones), "ONEDNN_WINOGRAD",
// "ONEDNN_GEMM" (im2col + GEMM) and "ONEDNN_AUTO" (oneDNN's own choice of implementation and
// layout: the baseline in benchmarks).
//
// oneDNN's fast direct and Winograd kernels want blocked layouts (nChw16c, ...), so when the
// chosen implementation's layout differs from the problem's, the solver reorders inputs into
// the workspace and the output back out of it; those reorders are part of the measured run,
// and their buffers part of workspace_bytes. Convolution mode (flipped filter) is handled by
// flipping the filter in the workspace.
#include <string>
#include <vector>

#include "solver.h"

namespace ucudnn::cpu {

std::vector<const Solver*> onednn_solvers();

// The oneDNN implementation a solver from onednn_solvers() runs for kernel (impl_info_str,
// e.g. "jit:avx512_core"), with " +reorder" when it reorders tensors. Empty when the solver
// is not one of these or does not apply.
std::string onednn_implementation(const Solver& solver, const KernelKey& kernel);

}  // namespace ucudnn::cpu
