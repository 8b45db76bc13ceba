#pragma once
// The loops around the Winograd micro-kernels: how the workspace is laid out, how tiles
// are grouped into chunks and channel blocks into work items, and how the four phases
// (filter, input, GEMM, output) are spread over the thread pool. Apart from the solver
// (which decides what problems apply and maps them to a correlation) and from the kernels
// (which do the arithmetic of one work item), so that each can change on its own.
#include <cstddef>
#include <cstdint>

#include "kernels/winograd_kernels.h"
#include "solver.h"
#include "thread_pool.h"

namespace ucudnn::cpu::winograd {

// Both operations as a forward cross-correlation: `in` (n x groups*cg x h x w) with a
// 3x3 filter of kg x cg taps per group gives `out` (n x groups*kg x p x q). The filter tap
// (group, ko, ci, r, s) is at filter[f_base + group*f_group + ko*f_ko + ci*f_ci + r*f_r +
// s*f_s], strides that absorb convolution mode's flip and BackwardData's rotation and
// channel transposition.
struct Conv {
  std::int64_t n, groups, cg, kg, h, w, p, q, pad_h, pad_w;
  const float* in = nullptr;
  std::int64_t in_image;
  float* out = nullptr;
  std::int64_t out_image;
  const float* filter = nullptr;
  std::int64_t f_base, f_group, f_ko, f_ci, f_r, f_s;
};

// The workspace F(m x m, 3 x 3) needs for cv (U, V and M of every tile position).
std::size_t workspace_bytes(const Conv& cv, int m);

// out = alpha conv(in, filter) + beta out by F(m x m, 3 x 3), m = 2 or 4, with the given
// micro-kernels; `workspace` holds workspace_bytes(cv, m) bytes.
void run(const Conv& cv, int m, const KernelVariant& kernels, Scaling scaling, void* workspace,
         ThreadPool& pool);

}  // namespace ucudnn::cpu::winograd
