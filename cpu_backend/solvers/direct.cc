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

// The two micro-kernels every loop nest ends in, over elements [begin, end) of strided rows.
// The unit-stride branch is the one that vectorizes.
template <typename T>
void add_scaled(T* target, std::int64_t target_step, const T* source, std::int64_t source_step,
                T factor, std::int64_t begin, std::int64_t end) {
  if (target_step == 1 && source_step == 1) {
    for (std::int64_t i = begin; i < end; ++i) target[i] += factor * source[i];
  } else {
    for (std::int64_t i = begin; i < end; ++i)
      target[i * target_step] += factor * source[i * source_step];
  }
}

template <typename T>
T dot(const T* a, std::int64_t a_step, const T* b, std::int64_t b_step, std::int64_t begin,
      std::int64_t end) {
  T sum = 0;
  if (a_step == 1 && b_step == 1) {
    for (std::int64_t i = begin; i < end; ++i) sum += a[i] * b[i];
  } else {
    for (std::int64_t i = begin; i < end; ++i) sum += a[i * a_step] * b[i * b_step];
  }
  return sum;
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

// The loops around the micro-kernels: [0, count) split among the pool's threads, each with
// one scratch buffer of `scratch` elements that the body zeroes where it needs to.
template <typename T, typename Body>
void for_each_index(ThreadPool& pool, std::int64_t count, std::int64_t scratch, Body body) {
  pool.parallel_for(
      static_cast<std::size_t>(count), [&](std::size_t begin, std::size_t end, unsigned) {
        std::vector<T> buffer(static_cast<std::size_t>(scratch));
        for (auto i = static_cast<std::int64_t>(begin); i < static_cast<std::int64_t>(end); ++i)
          body(i, buffer);
      });
}

template <typename T>
void forward(const Geometry& g, const T* x, const T* w, T* y, Scaling scaling, ThreadPool& pool) {
  for_each_index<T>(pool, g.n * g.k, g.q, [&](std::int64_t nk, std::vector<T>& row) {
    const std::int64_t n = nk / g.k, k = nk % g.k, group = k / g.kg;
    for (std::int64_t p = 0; p < g.p; ++p) {
      std::fill(row.begin(), row.end(), T(0));
      for (std::int64_t c = 0; c < g.cg; ++c)
        for_each_tap(g, p, [&](const Tap& tap) {
          const auto& [r, s, ih, offset, qb, qe] = tap;
          const T weight = w[g.w_at(k, c, r, s)];
          const T* in = x + g.x_at(n, group * g.cg + c, ih, 0) + offset * g.xs[3];
          add_scaled(row.data(), 1, in, g.stride_w * g.xs[3], weight, qb, qe);
        });
      store_row(row.data(), g.q, y + g.y_at(n, k, p, 0), g.ys[3], scaling);
    }
  });
}

template <typename T>
void backward_data(const Geometry& g, const T* dy, const T* w, T* dx, Scaling scaling,
                   ThreadPool& pool) {
  // Per input channel: scatter every output row back through the filter, then store.
  for_each_index<T>(pool, g.n * g.c, g.h * g.w, [&](std::int64_t nc, std::vector<T>& plane) {
    const std::int64_t n = nc / g.c, ic = nc % g.c, group = ic / g.cg, c = ic % g.cg;
    std::fill(plane.begin(), plane.end(), T(0));
    for (std::int64_t k = group * g.kg; k < (group + 1) * g.kg; ++k)
      for (std::int64_t p = 0; p < g.p; ++p) {
        const T* grad = dy + g.y_at(n, k, p, 0);
        for_each_tap(g, p, [&](const Tap& tap) {
          const auto& [r, s, ih, offset, qb, qe] = tap;
          const T weight = w[g.w_at(k, c, r, s)];
          T* target = plane.data() + ih * g.w + offset;
          add_scaled(target, g.stride_w, grad, g.ys[3], weight, qb, qe);
        });
      }
    for (std::int64_t ih = 0; ih < g.h; ++ih)
      store_row(plane.data() + ih * g.w, g.w, dx + g.x_at(n, ic, ih, 0), g.xs[3], scaling);
  });
}

template <typename T>
void backward_filter(const Geometry& g, const T* x, const T* dy, T* dw, Scaling scaling,
                     ThreadPool& pool) {
  for_each_index<T>(pool, g.k * g.cg, g.r * g.s, [&](std::int64_t kc, std::vector<T>& taps) {
    const std::int64_t k = kc / g.cg, c = kc % g.cg, ic = (k / g.kg) * g.cg + c;
    std::fill(taps.begin(), taps.end(), T(0));
    for (std::int64_t n = 0; n < g.n; ++n)
      for (std::int64_t p = 0; p < g.p; ++p) {
        const T* grad = dy + g.y_at(n, k, p, 0);
        for_each_tap(g, p, [&](const Tap& tap) {
          const auto& [r, s, ih, offset, qb, qe] = tap;
          const T* in = x + g.x_at(n, ic, ih, 0) + offset * g.xs[3];
          taps[static_cast<std::size_t>(r * g.s + s)] +=
              dot(grad, g.ys[3], in, g.stride_w * g.xs[3], qb, qe);
        });
      }
    // A flipped filter is stored right to left: a negative stride.
    for (std::int64_t r = 0; r < g.r; ++r)
      store_row(taps.data() + r * g.s, g.s, dw + g.w_at(k, c, r, 0), g.flip ? -g.ws[3] : g.ws[3],
                scaling);
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
