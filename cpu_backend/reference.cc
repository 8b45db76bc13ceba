#include "reference.h"

#include <stdexcept>
#include <vector>

#include "geometry.h"

namespace ucudnn::cpu {

bool is_cpu_2d_problem(const ConvolutionProblem& problem) {
  return problem.x.dims.size() == 4 && !problem.validation_error() &&
         (problem.data_type == DataType::kFloat || problem.data_type == DataType::kDouble);
}

namespace {

template <typename T>
void run_reference(const KernelKey& kernel, const Tensors& tensors, Scaling scaling) {
  const Geometry g(kernel.problem);
  const T* x = static_cast<const T*>(tensors.x);
  const T* w = static_cast<const T*>(tensors.w);
  const T* y = static_cast<const T*>(tensors.y);
  // Accumulators indexed densely by the output tensor's logical index.
  std::int64_t out_n, out_c, out_h, out_w;
  switch (kernel.operation) {
    case Operation::kForward:
      out_n = g.n, out_c = g.k, out_h = g.p, out_w = g.q;
      break;
    case Operation::kBackwardData:
      out_n = g.n, out_c = g.c, out_h = g.h, out_w = g.w;
      break;
    default:
      out_n = g.k, out_c = g.cg, out_h = g.r, out_w = g.s;
      break;
  }
  std::vector<double> sum(static_cast<std::size_t>(out_n * out_c * out_h * out_w), 0.0);
  auto dense = [&](std::int64_t a, std::int64_t b, std::int64_t c, std::int64_t d) {
    return static_cast<std::size_t>(((a * out_c + b) * out_h + c) * out_w + d);
  };
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t k = 0; k < g.k; ++k) {
      const std::int64_t group = k / g.kg;
      for (std::int64_t p = 0; p < g.p; ++p)
        for (std::int64_t q = 0; q < g.q; ++q)
          for (std::int64_t c = 0; c < g.cg; ++c)
            for (std::int64_t r = 0; r < g.r; ++r)
              for (std::int64_t s = 0; s < g.s; ++s) {
                const std::int64_t ih = p * g.stride_h - g.pad_h + r * g.dilation_h;
                const std::int64_t iw = q * g.stride_w - g.pad_w + s * g.dilation_w;
                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                const std::int64_t ic = group * g.cg + c;
                switch (kernel.operation) {
                  case Operation::kForward:
                    sum[dense(n, k, p, q)] += static_cast<double>(x[g.x_at(n, ic, ih, iw)]) *
                                              static_cast<double>(w[g.w_at(k, c, r, s)]);
                    break;
                  case Operation::kBackwardData:
                    sum[dense(n, ic, ih, iw)] += static_cast<double>(y[g.y_at(n, k, p, q)]) *
                                                 static_cast<double>(w[g.w_at(k, c, r, s)]);
                    break;
                  case Operation::kBackwardFilter: {
                    // dw is stored at the filter's (possibly flipped) position.
                    const std::int64_t fr = g.flip ? g.r - 1 - r : r, fs = g.flip ? g.s - 1 - s : s;
                    sum[dense(k, c, fr, fs)] += static_cast<double>(y[g.y_at(n, k, p, q)]) *
                                                static_cast<double>(x[g.x_at(n, ic, ih, iw)]);
                    break;
                  }
                }
              }
    }
  T* out;
  const std::int64_t* strides;
  switch (kernel.operation) {
    case Operation::kForward:
      out = static_cast<T*>(tensors.y), strides = g.ys;
      break;
    case Operation::kBackwardData:
      out = static_cast<T*>(tensors.x), strides = g.xs;
      break;
    default:
      out = static_cast<T*>(tensors.w), strides = g.ws;
      break;
  }
  for (std::int64_t a = 0; a < out_n; ++a)
    for (std::int64_t b = 0; b < out_c; ++b)
      for (std::int64_t c = 0; c < out_h; ++c)
        for (std::int64_t d = 0; d < out_w; ++d) {
          T& target = out[a * strides[0] + b * strides[1] + c * strides[2] + d * strides[3]];
          const double value = scaling.alpha * sum[dense(a, b, c, d)];
          target = static_cast<T>(
              scaling.beta == 0 ? value : value + scaling.beta * static_cast<double>(target));
        }
}

}  // namespace

void reference_convolution(const KernelKey& kernel, const Tensors& tensors, Scaling scaling) {
  if (!is_cpu_2d_problem(kernel.problem))
    throw std::invalid_argument("reference_convolution: not a 2-d float or double problem");
  if (kernel.problem.data_type == DataType::kDouble)
    run_reference<double>(kernel, tensors, scaling);
  else
    run_reference<float>(kernel, tensors, scaling);
}

}  // namespace ucudnn::cpu
