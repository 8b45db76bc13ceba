// "LOWERING_PER_IMAGE" (lowering_solvers.h): one image lowered at a time, one threaded GEMM.
#include "gemm.h"
#include "lowering.h"
#include "solvers/lowering_solvers.h"
#include "solvers/lowering_steps.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

class LoweringPerImage final : public Solver {
 public:
  std::string_view name() const override { return "LOWERING_PER_IMAGE"; }
  bool applies(const KernelKey& kernel) const override { return lowering_applies(kernel); }
  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    const Geometry g(kernel.problem);
    return static_cast<std::size_t>(lowered_rows(g) * lowered_columns(g)) * sizeof(float);
  }

  void run(const KernelKey& kernel, const Tensors& t, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    const Geometry g(kernel.problem);
    const std::int64_t rows = lowered_rows(g), pq = lowered_columns(g);
    auto* col = static_cast<float*>(workspace.data);
    auto* x = static_cast<float*>(t.x);
    auto* w = static_cast<float*>(t.w);
    auto* y = static_cast<float*>(t.y);
    const auto alpha = static_cast<float>(scaling.alpha);
    for (std::int64_t group = 0; group < g.groups; ++group) {
      float* w_group = w + group * g.kg * rows;
      for (std::int64_t n = 0; n < g.n; ++n) {
        float* x_block = x + n * g.xs[0] + group * g.cg * g.h * g.w;
        float* y_block = y + n * g.ys[0] + group * g.kg * pq;
        switch (kernel.operation) {
          case Operation::kForward:
            parallel_im2col(pool, g, x_block, col, pq);
            parallel_sgemm(pool, Transpose::kNo, Transpose::kNo, g.kg, pq, rows, alpha, w_group,
                           rows, col, pq, static_cast<float>(scaling.beta), y_block, pq);
            break;
          case Operation::kBackwardData:
            parallel_sgemm(pool, Transpose::kYes, Transpose::kNo, rows, pq, g.kg, alpha, w_group,
                           rows, y_block, pq, 0.0f, col, pq);
            scale_input_block(g, x_block, scaling.beta);
            parallel_col2im(pool, g, col, pq, x_block);
            break;
          case Operation::kBackwardFilter:
            // Accumulates over images: the caller's beta on the first only.
            parallel_im2col(pool, g, x_block, col, pq);
            parallel_sgemm(pool, Transpose::kNo, Transpose::kYes, g.kg, rows, pq, alpha, y_block,
                           pq, col, pq, n == 0 ? static_cast<float>(scaling.beta) : 1.0f, w_group,
                           rows);
            break;
        }
      }
    }
  }
};

}  // namespace

const Solver& lowering_per_image_solver() {
  static const LoweringPerImage solver;
  return solver;
}

}  // namespace ucudnn::cpu
