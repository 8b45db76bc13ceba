// "LOWERING_ND" (nd_solvers.h): im2col and GEMM for spatial ranks 1 to 3.
#include <algorithm>
#include <cstring>

#include "gemm.h"
#include "geometry.h"
#include "geometry_nd.h"
#include "solvers/nd_solvers.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// One image's channels [c0, c0 + cg) as a (cg * taps) x (output volume) matrix: row (c, f)
// holds the input element each output position reads through tap f, 0 in the padding.
// Visits rows in parallel; vol2col writes them, col2vol adds them back into `sums`.
template <bool kToColumns>
void lower(const GeometryNd& g, const float* image, float* columns, float* sums, ThreadPool& pool) {
  const std::int64_t taps = GeometryNd::volume(g.filter), volume = GeometryNd::volume(g.out);
  // col2vol: channel c owns rows (c, *), so ranges of channels never write the same sums.
  const std::int64_t rows = kToColumns ? g.cg * taps : g.cg;
  pool.parallel_for(static_cast<std::size_t>(rows), [&](std::size_t b, std::size_t e, unsigned) {
    for (auto job = static_cast<std::int64_t>(b); job < static_cast<std::int64_t>(e); ++job) {
      const std::int64_t first = kToColumns ? job : job * taps;
      const std::int64_t last = kToColumns ? job + 1 : (job + 1) * taps;
      for (std::int64_t row = first; row < last; ++row) {
        const std::int64_t c = row / taps, tap = row % taps;
        const Extent3 f = {tap / (g.filter[1] * g.filter[2]), tap / g.filter[2] % g.filter[1],
                           tap % g.filter[2]};
        float* column = columns + row * volume;
        const std::int64_t channel = c * g.xs[1];
        if (kToColumns) std::fill(column, column + volume, 0.0f);
        std::int64_t off[3];
        std::int64_t span[3][2];
        for (int d = 0; d < 3; ++d) {
          off[d] = f[d] * g.dilation[d] - g.pad[d];
          const auto [lo, hi] = valid_columns(off[d], g.stride[d], g.in[d], g.out[d]);
          span[d][0] = lo, span[d][1] = hi;
        }
        for (std::int64_t o0 = span[0][0]; o0 < span[0][1]; ++o0)
          for (std::int64_t o1 = span[1][0]; o1 < span[1][1]; ++o1) {
            const std::int64_t in_row = channel + (o0 * g.stride[0] + off[0]) * g.xs[2] +
                                        (o1 * g.stride[1] + off[1]) * g.xs[3];
            float* out = column + (o0 * g.out[1] + o1) * g.out[2];
            for (std::int64_t o2 = span[2][0]; o2 < span[2][1]; ++o2) {
              const std::int64_t at = in_row + o2 * g.stride[2] + off[2];
              if (kToColumns)
                out[o2] = image[at];
              else
                sums[at] += out[o2];
            }
          }
      }
    }
  });
}

class LoweringNdSolver final : public Solver {
 public:
  std::string_view name() const override { return "LOWERING_ND"; }

  bool applies(const KernelKey& kernel) const override {
    const ConvolutionProblem& p = kernel.problem;
    if (!is_cpu_nd_problem(p) || p.spatial_rank() == 2 || p.data_type != DataType::kFloat)
      return false;
    const GeometryNd g(p);
    return g.x_images_packed() && g.y_images_packed() && g.w_packed() && !g.flip;
  }

  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    const GeometryNd g(kernel.problem);
    std::size_t floats =
        static_cast<std::size_t>(g.cg * GeometryNd::volume(g.filter) * GeometryNd::volume(g.out));
    if (kernel.operation == Operation::kBackwardData)
      floats += static_cast<std::size_t>(g.cg * GeometryNd::volume(g.in));
    return floats * sizeof(float);
  }

  void run(const KernelKey& kernel, const Tensors& t, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    const GeometryNd g(kernel.problem);
    const auto taps = static_cast<std::size_t>(GeometryNd::volume(g.filter));
    const auto out_volume = static_cast<std::size_t>(GeometryNd::volume(g.out));
    const auto in_volume = static_cast<std::size_t>(GeometryNd::volume(g.in));
    const auto cg = static_cast<std::size_t>(g.cg), kg = static_cast<std::size_t>(g.kg);
    const std::size_t lowered_rows = cg * taps;
    float* columns = static_cast<float*>(workspace.data);
    float* sums = columns + lowered_rows * out_volume;
    const auto alpha = static_cast<float>(scaling.alpha);
    float* x = static_cast<float*>(t.x);
    float* w = static_cast<float*>(t.w);
    float* y = static_cast<float*>(t.y);
    for (std::int64_t n = 0; n < g.n; ++n)
      for (std::int64_t group = 0; group < g.groups; ++group) {
        float* image = x + n * g.xs[0] + group * g.cg * g.xs[1];
        float* filters = w + group * g.kg * g.ws[0];
        float* outputs = y + n * g.ys[0] + group * g.kg * g.ys[1];
        switch (kernel.operation) {
          case Operation::kForward:
            lower<true>(g, image, columns, nullptr, pool);
            parallel_sgemm(pool, Transpose::kNo, Transpose::kNo, kg, out_volume, lowered_rows,
                           alpha, filters, lowered_rows, columns, out_volume,
                           static_cast<float>(scaling.beta), outputs, out_volume);
            break;
          case Operation::kBackwardData: {
            parallel_sgemm(pool, Transpose::kYes, Transpose::kNo, lowered_rows, out_volume, kg,
                           1.0f, filters, lowered_rows, outputs, out_volume, 0.0f, columns,
                           out_volume);
            std::fill(sums, sums + cg * in_volume, 0.0f);
            lower<false>(g, nullptr, columns, sums, pool);
            const std::size_t count = cg * in_volume;
            for (std::size_t i = 0; i < count; ++i)
              image[i] = scaling.beta == 0
                             ? alpha * sums[i]
                             : alpha * sums[i] + static_cast<float>(scaling.beta) * image[i];
            break;
          }
          case Operation::kBackwardFilter:
            lower<true>(g, image, columns, nullptr, pool);
            parallel_sgemm(pool, Transpose::kNo, Transpose::kYes, kg, lowered_rows, out_volume,
                           alpha, outputs, out_volume, columns, out_volume,
                           n == 0 ? static_cast<float>(scaling.beta) : 1.0f, filters, lowered_rows);
            break;
        }
      }
  }
};

}  // namespace

const Solver& lowering_nd_solver() {
  static const LoweringNdSolver solver;
  return solver;
}

}  // namespace ucudnn::cpu
