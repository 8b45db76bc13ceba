#include "solvers/direct.h"

#include <vector>

#include "geometry.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// Each loop nest keeps the innermost loop over a contiguous output row within the range
// where no padding test is needed, so that it vectorizes for unit strides.

template <typename T>
void store_row(const T* sum, std::int64_t count, T* out, std::int64_t stride, Scaling scaling) {
  const T alpha = static_cast<T>(scaling.alpha), beta = static_cast<T>(scaling.beta);
  for (std::int64_t i = 0; i < count; ++i) {
    T& target = out[i * stride];
    target = scaling.beta == 0 ? alpha * sum[i] : alpha * sum[i] + beta * target;
  }
}

// A filter tap (r, s) as output row p reaches it inside the image: the input row ih, the input
// column of output column 0 (offset) and the output columns [qb, qe) that need no padding test.
struct Tap {
  std::int64_t r, s, ih, offset, qb, qe;
};

template <typename Visit>
void for_each_tap(const Geometry& g, std::int64_t p, Visit visit) {
  for (std::int64_t r = 0; r < g.r; ++r) {
    const std::int64_t ih = p * g.stride_h - g.pad_h + r * g.dilation_h;
    if (ih < 0 || ih >= g.h) continue;
    for (std::int64_t s = 0; s < g.s; ++s) {
      const std::int64_t offset = s * g.dilation_w - g.pad_w;
      const auto [qb, qe] = valid_columns(offset, g.stride_w, g.w, g.q);
      visit(Tap{r, s, ih, offset, qb, qe});
    }
  }
}

template <typename T>
void forward(const Geometry& g, const T* x, const T* w, T* y, Scaling scaling, ThreadPool& pool) {
  pool.parallel_for(static_cast<std::size_t>(g.n * g.k), [&](std::size_t begin, std::size_t end,
                                                             unsigned) {
    std::vector<T> row(static_cast<std::size_t>(g.q));
    for (auto nk = static_cast<std::int64_t>(begin); nk < static_cast<std::int64_t>(end); ++nk) {
      const std::int64_t n = nk / g.k, k = nk % g.k, group = k / g.kg;
      for (std::int64_t p = 0; p < g.p; ++p) {
        std::fill(row.begin(), row.end(), T(0));
        for (std::int64_t c = 0; c < g.cg; ++c)
          for_each_tap(g, p, [&](const Tap& tap) {
            const auto& [r, s, ih, offset, qb, qe] = tap;
            const T weight = w[g.w_at(k, c, r, s)];
            const T* in = x + g.x_at(n, group * g.cg + c, ih, 0) + offset * g.xs[3];
            const std::int64_t step = g.stride_w * g.xs[3];
            if (step == 1) {
              for (std::int64_t q = qb; q < qe; ++q) row[q] += weight * in[q];
            } else {
              for (std::int64_t q = qb; q < qe; ++q) row[q] += weight * in[q * step];
            }
          });
        store_row(row.data(), g.q, y + g.y_at(n, k, p, 0), g.ys[3], scaling);
      }
    }
  });
}

template <typename T>
void backward_data(const Geometry& g, const T* dy, const T* w, T* dx, Scaling scaling,
                   ThreadPool& pool) {
  // Per input channel: scatter every output row back through the filter, then store.
  pool.parallel_for(static_cast<std::size_t>(g.n * g.c), [&](std::size_t begin, std::size_t end,
                                                             unsigned) {
    std::vector<T> plane(static_cast<std::size_t>(g.h * g.w));
    for (auto nc = static_cast<std::int64_t>(begin); nc < static_cast<std::int64_t>(end); ++nc) {
      const std::int64_t n = nc / g.c, ic = nc % g.c, group = ic / g.cg, c = ic % g.cg;
      std::fill(plane.begin(), plane.end(), T(0));
      for (std::int64_t k = group * g.kg; k < (group + 1) * g.kg; ++k)
        for (std::int64_t p = 0; p < g.p; ++p) {
          const T* grad = dy + g.y_at(n, k, p, 0);
          for_each_tap(g, p, [&](const Tap& tap) {
            const auto& [r, s, ih, offset, qb, qe] = tap;
            const T weight = w[g.w_at(k, c, r, s)];
            T* target = plane.data() + ih * g.w + offset;
            if (g.ys[3] == 1 && g.stride_w == 1) {
              for (std::int64_t q = qb; q < qe; ++q) target[q] += weight * grad[q];
            } else {
              for (std::int64_t q = qb; q < qe; ++q)
                target[q * g.stride_w] += weight * grad[q * g.ys[3]];
            }
          });
        }
      for (std::int64_t ih = 0; ih < g.h; ++ih)
        store_row(plane.data() + ih * g.w, g.w, dx + g.x_at(n, ic, ih, 0), g.xs[3], scaling);
    }
  });
}

template <typename T>
void backward_filter(const Geometry& g, const T* x, const T* dy, T* dw, Scaling scaling,
                     ThreadPool& pool) {
  pool.parallel_for(static_cast<std::size_t>(g.k * g.cg), [&](std::size_t begin, std::size_t end,
                                                              unsigned) {
    std::vector<T> taps(static_cast<std::size_t>(g.r * g.s));
    for (auto kc = static_cast<std::int64_t>(begin); kc < static_cast<std::int64_t>(end); ++kc) {
      const std::int64_t k = kc / g.cg, c = kc % g.cg, ic = (k / g.kg) * g.cg + c;
      std::fill(taps.begin(), taps.end(), T(0));
      for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t p = 0; p < g.p; ++p) {
          const T* grad = dy + g.y_at(n, k, p, 0);
          for_each_tap(g, p, [&](const Tap& tap) {
            const auto& [r, s, ih, offset, qb, qe] = tap;
            const T* in = x + g.x_at(n, ic, ih, 0) + offset * g.xs[3];
            const std::int64_t step = g.stride_w * g.xs[3];
            T sum = 0;
            if (step == 1 && g.ys[3] == 1) {
              for (std::int64_t q = qb; q < qe; ++q) sum += grad[q] * in[q];
            } else {
              for (std::int64_t q = qb; q < qe; ++q) sum += grad[q * g.ys[3]] * in[q * step];
            }
            taps[static_cast<std::size_t>(r * g.s + s)] += sum;
          });
        }
      for (std::int64_t r = 0; r < g.r; ++r)
        for (std::int64_t s = 0; s < g.s; ++s) {
          T& out = dw[g.w_at(k, c, r, s)];
          const T value =
              static_cast<T>(scaling.alpha) * taps[static_cast<std::size_t>(r * g.s + s)];
          out = scaling.beta == 0 ? value : value + static_cast<T>(scaling.beta) * out;
        }
    }
  });
}

template <typename T>
void run_typed(const KernelKey& kernel, const Tensors& t, Scaling scaling, ThreadPool& pool) {
  const Geometry g(kernel.problem);
  switch (kernel.operation) {
    case Operation::kForward:
      forward(g, static_cast<const T*>(t.x), static_cast<const T*>(t.w), static_cast<T*>(t.y),
              scaling, pool);
      break;
    case Operation::kBackwardData:
      backward_data(g, static_cast<const T*>(t.y), static_cast<const T*>(t.w), static_cast<T*>(t.x),
                    scaling, pool);
      break;
    case Operation::kBackwardFilter:
      backward_filter(g, static_cast<const T*>(t.x), static_cast<const T*>(t.y),
                      static_cast<T*>(t.w), scaling, pool);
      break;
  }
}

class DirectSolver final : public Solver {
 public:
  std::string_view name() const override { return "DIRECT"; }
  bool applies(const KernelKey& kernel) const override { return is_cpu_2d_problem(kernel.problem); }
  std::size_t workspace_bytes(const KernelKey&) const override { return 0; }
  void run(const KernelKey& kernel, const Tensors& tensors, Scaling scaling, Workspace,
           ThreadPool& pool) const override {
    if (kernel.problem.data_type == DataType::kDouble)
      run_typed<double>(kernel, tensors, scaling, pool);
    else
      run_typed<float>(kernel, tensors, scaling, pool);
  }
};

}  // namespace

const Solver& direct_solver() {
  static const DirectSolver solver;
  return solver;
}

}  // namespace ucudnn::cpu
