// The Winograd solvers as the registry sees them: which problems F(m x m, 3 x 3) applies
// to, and how Forward and BackwardData become one forward cross-correlation. The work
// itself is in winograd_loops.cc and the micro-kernels in kernels/.
#include "solvers/winograd.h"

#include <cstddef>

#include "geometry.h"
#include "kernels/winograd_kernels.h"
#include "solvers/winograd_loops.h"

namespace ucudnn::cpu {

namespace {

winograd::Conv conv_of(const KernelKey& kernel, const Tensors& tensors) {
  const Geometry g(kernel.problem);
  winograd::Conv cv;
  cv.n = g.n;
  cv.groups = g.groups;
  cv.filter = static_cast<const float*>(tensors.w);
  cv.f_group = g.kg * g.ws[0];
  if (kernel.operation == Operation::kForward) {
    cv.cg = g.cg, cv.kg = g.kg, cv.h = g.h, cv.w = g.w, cv.p = g.p, cv.q = g.q;
    cv.pad_h = g.pad_h, cv.pad_w = g.pad_w;
    cv.in = static_cast<const float*>(tensors.x), cv.in_image = g.xs[0];
    cv.out = static_cast<float*>(tensors.y), cv.out_image = g.ys[0];
    cv.f_ko = g.ws[0], cv.f_ci = g.ws[1];
    cv.f_base = g.w_at(0, 0, 0, 0);
    cv.f_r = g.w_at(0, 0, 1, 0) - cv.f_base, cv.f_s = g.w_at(0, 0, 0, 1) - cv.f_base;
  } else {
    // dx = dy correlated with the filter rotated by 180 degrees, K and C swapped.
    cv.cg = g.kg, cv.kg = g.cg, cv.h = g.p, cv.w = g.q, cv.p = g.h, cv.q = g.w;
    cv.pad_h = g.r - 1 - g.pad_h, cv.pad_w = g.s - 1 - g.pad_w;
    cv.in = static_cast<const float*>(tensors.y), cv.in_image = g.ys[0];
    cv.out = static_cast<float*>(tensors.x), cv.out_image = g.xs[0];
    cv.f_ko = g.ws[1], cv.f_ci = g.ws[0];
    cv.f_base = g.w_at(0, 0, g.r - 1, g.s - 1);
    cv.f_r = g.w_at(0, 0, g.r - 2, g.s - 1) - cv.f_base,
    cv.f_s = g.w_at(0, 0, g.r - 1, g.s - 2) - cv.f_base;
  }
  return cv;
}

template <int kM>
class WinogradSolver final : public Solver {
 public:
  std::string_view name() const override {
    return kM == 2 ? "WINOGRAD_F2X2_3X3" : "WINOGRAD_F4X4_3X3";
  }

  bool applies(const KernelKey& kernel) const override {
    const ConvolutionProblem& problem = kernel.problem;
    if (!is_cpu_2d_problem(problem) || problem.data_type != DataType::kFloat) return false;
    const Geometry g(problem);
    if (g.r != 3 || g.s != 3 || g.stride_h != 1 || g.stride_w != 1 || g.dilation_h != 1 ||
        g.dilation_w != 1 || !g.x_images_packed() || !g.y_images_packed() || !g.w_packed())
      return false;
    switch (kernel.operation) {
      case Operation::kForward:
        return true;
      case Operation::kBackwardData:  // as a forward convolution with padding 2 - pad
        return g.pad_h <= g.r - 1 && g.pad_w <= g.s - 1;
      case Operation::kBackwardFilter:
        return false;
    }
    return false;
  }

  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    return winograd::workspace_bytes(conv_of(kernel, Tensors{}), kM);
  }

  void run(const KernelKey& kernel, const Tensors& tensors, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    winograd::run(conv_of(kernel, tensors), kM, winograd::selected_kernel_variant(kM), scaling,
                  workspace.data, pool);
  }

  // F(4x4, 3x3)'s transforms lose about a digit.
  double tolerance(const KernelKey& kernel) const override {
    return kM == 2 ? Solver::tolerance(kernel) : 1e-4;
  }
};

}  // namespace

const Solver& winograd_f2x2_3x3_solver() {
  static const WinogradSolver<2> solver;
  return solver;
}

const Solver& winograd_f4x4_3x3_solver() {
  static const WinogradSolver<4> solver;
  return solver;
}

}  // namespace ucudnn::cpu
