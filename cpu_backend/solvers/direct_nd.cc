// "DIRECT_ND" (nd_solvers.h): the direct loops for spatial ranks 1 to 3, one nest of depth 3.
#include <vector>

#include "geometry.h"
#include "geometry_nd.h"
#include "solvers/nd_solvers.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// The output positions o in [0, out) whose input position o * stride + offset lies inside
// [0, in), per spatial dimension: the loops below visit only those.
struct Span {
  std::int64_t begin, end;
};
Span inside(std::int64_t offset, std::int64_t stride, std::int64_t in, std::int64_t out) {
  const auto [b, e] = valid_columns(offset, stride, in, out);
  return {b, e};
}

template <typename T>
void store(const std::vector<T>& sum, T* out, const std::int64_t* strides, const Extent3& extent,
           Scaling scaling) {
  const T alpha = static_cast<T>(scaling.alpha), beta = static_cast<T>(scaling.beta);
  std::size_t at = 0;
  for (std::int64_t a = 0; a < extent[0]; ++a)
    for (std::int64_t b = 0; b < extent[1]; ++b)
      for (std::int64_t c = 0; c < extent[2]; ++c, ++at) {
        T& target = out[a * strides[0] + b * strides[1] + c * strides[2]];
        target = scaling.beta == 0 ? alpha * sum[at] : alpha * sum[at] + beta * target;
      }
}

// Visits every filter tap f and the output rows (o0, o1) that reach the input inside the
// image: visit(f, o0, o1, i0, i1, o2 range, input column offset of o2 = 0).
template <typename Visit>
void for_each_row(const GeometryNd& g, Visit visit) {
  Extent3 f;
  for (f[0] = 0; f[0] < g.filter[0]; ++f[0]) {
    const std::int64_t off0 = f[0] * g.dilation[0] - g.pad[0];
    const Span s0 = inside(off0, g.stride[0], g.in[0], g.out[0]);
    for (f[1] = 0; f[1] < g.filter[1]; ++f[1]) {
      const std::int64_t off1 = f[1] * g.dilation[1] - g.pad[1];
      const Span s1 = inside(off1, g.stride[1], g.in[1], g.out[1]);
      for (f[2] = 0; f[2] < g.filter[2]; ++f[2]) {
        const std::int64_t off2 = f[2] * g.dilation[2] - g.pad[2];
        const Span s2 = inside(off2, g.stride[2], g.in[2], g.out[2]);
        if (s2.begin >= s2.end) continue;
        for (std::int64_t o0 = s0.begin; o0 < s0.end; ++o0)
          for (std::int64_t o1 = s1.begin; o1 < s1.end; ++o1)
            visit(f, o0, o1, o0 * g.stride[0] + off0, o1 * g.stride[1] + off1, s2, off2);
      }
    }
  }
}

template <typename T>
void forward(const GeometryNd& g, const Tensors& t, Scaling scaling, ThreadPool& pool) {
  const T* x = static_cast<const T*>(t.x);
  const T* w = static_cast<const T*>(t.w);
  T* y = static_cast<T*>(t.y);
  const std::int64_t volume = GeometryNd::volume(g.out);
  pool.parallel_for(
      static_cast<std::size_t>(g.n * g.k), [&](std::size_t b, std::size_t e, unsigned) {
        std::vector<T> sum(static_cast<std::size_t>(volume));
        for (auto job = static_cast<std::int64_t>(b); job < static_cast<std::int64_t>(e); ++job) {
          const std::int64_t n = job / g.k, k = job % g.k, group = k / g.kg;
          std::fill(sum.begin(), sum.end(), T(0));
          for (std::int64_t c = 0; c < g.cg; ++c) {
            const T* image = x + g.x_at(n, group * g.cg + c, {0, 0, 0});
            for_each_row(g, [&](const Extent3& f, std::int64_t o0, std::int64_t o1, std::int64_t i0,
                                std::int64_t i1, Span s2, std::int64_t off2) {
              const T weight = w[g.w_at(k, c, f)];
              T* row = sum.data() + (o0 * g.out[1] + o1) * g.out[2];
              const T* in = image + i0 * g.xs[2] + i1 * g.xs[3];
              for (std::int64_t o2 = s2.begin; o2 < s2.end; ++o2)
                row[o2] += weight * in[(o2 * g.stride[2] + off2) * g.xs[4]];
            });
          }
          store(sum, y + g.y_at(n, k, {0, 0, 0}), g.ys + 2, g.out, scaling);
        }
      });
}

template <typename T>
void backward_data(const GeometryNd& g, const Tensors& t, Scaling scaling, ThreadPool& pool) {
  const T* dy = static_cast<const T*>(t.y);
  const T* w = static_cast<const T*>(t.w);
  T* dx = static_cast<T*>(t.x);
  const std::int64_t volume = GeometryNd::volume(g.in);
  pool.parallel_for(
      static_cast<std::size_t>(g.n * g.c), [&](std::size_t b, std::size_t e, unsigned) {
        std::vector<T> sum(static_cast<std::size_t>(volume));
        for (auto job = static_cast<std::int64_t>(b); job < static_cast<std::int64_t>(e); ++job) {
          const std::int64_t n = job / g.c, ic = job % g.c, group = ic / g.cg, c = ic % g.cg;
          std::fill(sum.begin(), sum.end(), T(0));
          for (std::int64_t kk = 0; kk < g.kg; ++kk) {
            const std::int64_t k = group * g.kg + kk;
            const T* image = dy + g.y_at(n, k, {0, 0, 0});
            for_each_row(g, [&](const Extent3& f, std::int64_t o0, std::int64_t o1, std::int64_t i0,
                                std::int64_t i1, Span s2, std::int64_t off2) {
              const T weight = w[g.w_at(k, c, f)];
              T* row = sum.data() + (i0 * g.in[1] + i1) * g.in[2];
              const T* grad = image + o0 * g.ys[2] + o1 * g.ys[3];
              for (std::int64_t o2 = s2.begin; o2 < s2.end; ++o2)
                row[o2 * g.stride[2] + off2] += weight * grad[o2 * g.ys[4]];
            });
          }
          store(sum, dx + g.x_at(n, ic, {0, 0, 0}), g.xs + 2, g.in, scaling);
        }
      });
}

template <typename T>
void backward_filter(const GeometryNd& g, const Tensors& t, Scaling scaling, ThreadPool& pool) {
  const T* x = static_cast<const T*>(t.x);
  const T* dy = static_cast<const T*>(t.y);
  T* dw = static_cast<T*>(t.w);
  const std::int64_t taps = GeometryNd::volume(g.filter);
  pool.parallel_for(
      static_cast<std::size_t>(g.k * g.cg), [&](std::size_t b, std::size_t e, unsigned) {
        std::vector<T> sum(static_cast<std::size_t>(taps));
        for (auto job = static_cast<std::int64_t>(b); job < static_cast<std::int64_t>(e); ++job) {
          const std::int64_t k = job / g.cg, c = job % g.cg, group = k / g.kg;
          std::fill(sum.begin(), sum.end(), T(0));
          for (std::int64_t n = 0; n < g.n; ++n) {
            const T* image = x + g.x_at(n, group * g.cg + c, {0, 0, 0});
            const T* grad = dy + g.y_at(n, k, {0, 0, 0});
            for_each_row(g, [&](const Extent3& f, std::int64_t o0, std::int64_t o1, std::int64_t i0,
                                std::int64_t i1, Span s2, std::int64_t off2) {
              const T* in = image + i0 * g.xs[2] + i1 * g.xs[3];
              const T* out = grad + o0 * g.ys[2] + o1 * g.ys[3];
              T dot = 0;
              for (std::int64_t o2 = s2.begin; o2 < s2.end; ++o2)
                dot += out[o2 * g.ys[4]] * in[(o2 * g.stride[2] + off2) * g.xs[4]];
              // dw is stored at the filter's (possibly flipped) position.
              Extent3 stored = f;
              if (g.flip)
                for (int d = 0; d < 3; ++d) stored[d] = g.filter[d] - 1 - f[d];
              sum[static_cast<std::size_t>((stored[0] * g.filter[1] + stored[1]) * g.filter[2] +
                                           stored[2])] += dot;
            });
          }
          store(sum, dw + k * g.ws[0] + c * g.ws[1], g.ws + 2, g.filter, scaling);
        }
      });
}

template <typename T>
void run_direct(const KernelKey& kernel, const Tensors& tensors, Scaling scaling,
                ThreadPool& pool) {
  const GeometryNd g(kernel.problem);
  switch (kernel.operation) {
    case Operation::kForward:
      return forward<T>(g, tensors, scaling, pool);
    case Operation::kBackwardData:
      return backward_data<T>(g, tensors, scaling, pool);
    case Operation::kBackwardFilter:
      return backward_filter<T>(g, tensors, scaling, pool);
  }
}

class DirectNdSolver final : public Solver {
 public:
  std::string_view name() const override { return "DIRECT_ND"; }
  bool applies(const KernelKey& kernel) const override {
    return is_cpu_nd_problem(kernel.problem) && kernel.problem.spatial_rank() != 2;
  }
  std::size_t workspace_bytes(const KernelKey&) const override { return 0; }
  void run(const KernelKey& kernel, const Tensors& tensors, Scaling scaling, Workspace,
           ThreadPool& pool) const override {
    if (kernel.problem.data_type == DataType::kDouble)
      run_direct<double>(kernel, tensors, scaling, pool);
    else
      run_direct<float>(kernel, tensors, scaling, pool);
  }
};

}  // namespace

const Solver& direct_nd_solver() {
  static const DirectNdSolver solver;
  return solver;
}

}  // namespace ucudnn::cpu
