// "LOWERING_BATCHED" (lowering_solvers.h): the (micro-)batch lowered side by side, one GEMM
// per group.
#include "gemm.h"
#include "lowering.h"
#include "solvers/lowering_solvers.h"
#include "solvers/lowering_steps.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

class LoweringBatched final : public Solver {
 public:
  std::string_view name() const override { return "LOWERING_BATCHED"; }
  bool applies(const KernelKey& kernel) const override { return lowering_applies(kernel); }
  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    const Geometry g(kernel.problem);
    // The lowered batch, and the batch's output block of one group as a dense matrix.
    return static_cast<std::size_t>((lowered_rows(g) + g.kg) * g.n * lowered_columns(g)) *
           sizeof(float);
  }

  void run(const KernelKey& kernel, const Tensors& t, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    const Geometry g(kernel.problem);
    const std::int64_t rows = lowered_rows(g), pq = lowered_columns(g), columns = g.n * pq;
    auto* col = static_cast<float*>(workspace.data);
    float* dense = col + rows * columns;
    auto* x = static_cast<float*>(t.x);
    auto* w = static_cast<float*>(t.w);
    auto* y = static_cast<float*>(t.y);
    const auto alpha = static_cast<float>(scaling.alpha);
    auto each_image = [&](auto&& body) {
      pool.parallel_for(
          static_cast<std::size_t>(g.n), [&](std::size_t begin, std::size_t end, unsigned) {
            for (auto n = static_cast<std::int64_t>(begin); n < static_cast<std::int64_t>(end); ++n)
              body(n);
          });
    };
    for (std::int64_t group = 0; group < g.groups; ++group) {
      float* w_group = w + group * g.kg * rows;
      auto x_block = [&](std::int64_t n) { return x + n * g.xs[0] + group * g.cg * g.h * g.w; };
      auto y_block = [&](std::int64_t n) { return y + n * g.ys[0] + group * g.kg * pq; };
      switch (kernel.operation) {
        case Operation::kForward:
          each_image([&](std::int64_t n) { im2col(g, x_block(n), col + n * pq, columns); });
          parallel_sgemm(pool, Transpose::kNo, Transpose::kNo, g.kg, columns, rows, 1.0f, w_group,
                         rows, col, columns, 0.0f, dense, columns);
          each_image([&](std::int64_t n) {
            store_output_block(g, dense + n * pq, columns, y_block(n), scaling);
          });
          break;
        case Operation::kBackwardData:
          each_image(
              [&](std::int64_t n) { load_output_block(g, y_block(n), dense + n * pq, columns); });
          parallel_sgemm(pool, Transpose::kYes, Transpose::kNo, rows, columns, g.kg, alpha, w_group,
                         rows, dense, columns, 0.0f, col, columns);
          each_image([&](std::int64_t n) {
            scale_input_block(g, x_block(n), scaling.beta);
            col2im(g, col + n * pq, columns, x_block(n));
          });
          break;
        case Operation::kBackwardFilter:
          each_image([&](std::int64_t n) {
            im2col(g, x_block(n), col + n * pq, columns);
            load_output_block(g, y_block(n), dense + n * pq, columns);
          });
          parallel_sgemm(pool, Transpose::kNo, Transpose::kYes, g.kg, rows, columns, alpha, dense,
                         columns, col, columns, static_cast<float>(scaling.beta), w_group, rows);
          break;
      }
    }
  }
};

}  // namespace

const Solver& lowering_batched_solver() {
  static const LoweringBatched solver;
  return solver;
}

}  // namespace ucudnn::cpu
