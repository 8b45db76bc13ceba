// "LOWERING_PARTITIONED" (lowering_solvers.h): the batch split across the cores, each
// lowering its images and running its own single-threaded GEMMs.
#include <vector>

#include "gemm.h"
#include "lowering.h"
#include "solvers/lowering_solvers.h"
#include "solvers/lowering_steps.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// Partitions: one per physical core, fixed so that the workspace is a function of the kernel.
std::int64_t partitions() {
  static const auto cores = static_cast<std::int64_t>(ThreadPool::physical_cores());
  return cores;
}

class LoweringPartitioned final : public Solver {
 public:
  std::string_view name() const override { return "LOWERING_PARTITIONED"; }
  bool applies(const KernelKey& kernel) const override { return lowering_applies(kernel); }
  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    const Geometry g(kernel.problem);
    std::int64_t per_part = lowered_rows(g) * lowered_columns(g);
    if (kernel.operation == Operation::kBackwardFilter) per_part += g.k * lowered_rows(g);
    return static_cast<std::size_t>(parts(g) * per_part) * sizeof(float);
  }

  void run(const KernelKey& kernel, const Tensors& t, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    const Geometry g(kernel.problem);
    const std::int64_t rows = lowered_rows(g), pq = lowered_columns(g), count = parts(g);
    const std::int64_t per_part =
        rows * pq + (kernel.operation == Operation::kBackwardFilter ? g.k * rows : 0);
    auto* x = static_cast<float*>(t.x);
    auto* w = static_cast<float*>(t.w);
    auto* y = static_cast<float*>(t.y);
    const auto alpha = static_cast<float>(scaling.alpha), beta = static_cast<float>(scaling.beta);
    std::vector<char> worked(static_cast<std::size_t>(count), 0);

    pool.parallel_for(
        static_cast<std::size_t>(count), [&](std::size_t begin, std::size_t end, unsigned) {
          for (auto part = static_cast<std::int64_t>(begin); part < static_cast<std::int64_t>(end);
               ++part) {
            float* col = static_cast<float*>(workspace.data) + part * per_part;
            float* partial = col + rows * pq;  // BackwardFilter: this part's filter gradient
            const std::int64_t first = g.n * part / count, last = g.n * (part + 1) / count;
            for (std::int64_t n = first; n < last; ++n) {
              for (std::int64_t group = 0; group < g.groups; ++group) {
                float* w_group = w + group * g.kg * rows;
                float* x_block = x + n * g.xs[0] + group * g.cg * g.h * g.w;
                float* y_block = y + n * g.ys[0] + group * g.kg * pq;
                switch (kernel.operation) {
                  case Operation::kForward:
                    im2col(g, x_block, col, pq);
                    sgemm(Transpose::kNo, Transpose::kNo, g.kg, pq, rows, alpha, w_group, rows, col,
                          pq, beta, y_block, pq);
                    break;
                  case Operation::kBackwardData:
                    sgemm(Transpose::kYes, Transpose::kNo, rows, pq, g.kg, alpha, w_group, rows,
                          y_block, pq, 0.0f, col, pq);
                    scale_input_block(g, x_block, scaling.beta);
                    col2im(g, col, pq, x_block);
                    break;
                  case Operation::kBackwardFilter:
                    im2col(g, x_block, col, pq);
                    sgemm(Transpose::kNo, Transpose::kYes, g.kg, rows, pq, 1.0f, y_block, pq, col,
                          pq, n == first ? 0.0f : 1.0f, partial + group * g.kg * rows, rows);
                    break;
                }
              }
            }
            worked[static_cast<std::size_t>(part)] = last > first;
          }
        });

    if (kernel.operation != Operation::kBackwardFilter) return;
    // dw = alpha * (sum of the parts' gradients) + beta * dw.
    const std::int64_t elements = g.k * rows;
    pool.parallel_for(
        static_cast<std::size_t>(elements), [&](std::size_t begin, std::size_t end, unsigned) {
          for (auto i = static_cast<std::int64_t>(begin); i < static_cast<std::int64_t>(end); ++i) {
            float sum = 0;
            for (std::int64_t part = 0; part < count; ++part)
              if (worked[static_cast<std::size_t>(part)])
                sum += static_cast<float*>(workspace.data)[part * per_part + rows * pq + i];
            w[i] = scaling.beta == 0 ? alpha * sum : alpha * sum + beta * w[i];
          }
        });
  }

 private:
  static std::int64_t parts(const Geometry& g) {
    return std::max<std::int64_t>(1, std::min(partitions(), g.n));
  }
};

}  // namespace

const Solver& lowering_partitioned_solver() {
  static const LoweringPartitioned solver;
  return solver;
}

}  // namespace ucudnn::cpu
