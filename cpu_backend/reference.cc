#include "reference.h"

#include <stdexcept>
#include <type_traits>
#include <vector>

#include "geometry.h"
#include "geometry_nd.h"
#include "reduced_precision.h"

namespace ucudnn::cpu {

bool is_cpu_2d_problem(const ConvolutionProblem& problem) {
  return problem.x.dims.size() == 4 && !problem.validation_error() &&
         (problem.data_type == DataType::kFloat || problem.data_type == DataType::kDouble);
}

bool is_reference_problem(const ConvolutionProblem& problem) {
  const int rank = problem.spatial_rank();
  return rank >= 1 && rank <= GeometryNd::kMaxRank && !problem.validation_error() &&
         (problem.data_type == DataType::kFloat || problem.data_type == DataType::kDouble ||
          problem.data_type == DataType::kHalf || problem.data_type == DataType::kBFloat16);
}

namespace {

double load(float value) {
  return value;
}
double load(double value) {
  return value;
}
double load(Half value) {
  return to_float(value);
}
double load(BFloat16 value) {
  return to_float(value);
}

// A 16-bit type is rounded from float, as a GPU kernel accumulating in float stores it.
template <typename T>
T store(double value) {
  if constexpr (std::is_same_v<T, Half>)
    return to_half(static_cast<float>(value));
  else if constexpr (std::is_same_v<T, BFloat16>)
    return to_bfloat16(static_cast<float>(value));
  else
    return static_cast<T>(value);
}

// Scatters every (output position, channel, filter tap) product into dense double sums over
// the written tensor's logical elements, then writes alpha * sum + beta * old.
template <typename T>
void run_reference(const KernelKey& kernel, const Tensors& tensors, Scaling scaling) {
  const GeometryNd g(kernel.problem);
  const T* x = static_cast<const T*>(tensors.x);
  const T* w = static_cast<const T*>(tensors.w);
  const T* y = static_cast<const T*>(tensors.y);
  std::int64_t outer, channels;  // of the written tensor
  Extent3 extent;
  switch (kernel.operation) {
    case Operation::kForward:
      outer = g.n, channels = g.k, extent = g.out;
      break;
    case Operation::kBackwardData:
      outer = g.n, channels = g.c, extent = g.in;
      break;
    default:
      outer = g.k, channels = g.cg, extent = g.filter;
      break;
  }
  const std::int64_t volume = GeometryNd::volume(extent);
  std::vector<double> sum(static_cast<std::size_t>(outer * channels * volume), 0.0);
  auto dense = [&](std::int64_t a, std::int64_t b, const Extent3& i) {
    return static_cast<std::size_t>(
        ((a * channels + b) * extent[0] + i[0]) * extent[1] * extent[2] + i[1] * extent[2] + i[2]);
  };
  Extent3 o, f, i;
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t k = 0; k < g.k; ++k) {
      const std::int64_t group = k / g.kg;
      for (o[0] = 0; o[0] < g.out[0]; ++o[0])
        for (o[1] = 0; o[1] < g.out[1]; ++o[1])
          for (o[2] = 0; o[2] < g.out[2]; ++o[2])
            for (std::int64_t c = 0; c < g.cg; ++c)
              for (f[0] = 0; f[0] < g.filter[0]; ++f[0])
                for (f[1] = 0; f[1] < g.filter[1]; ++f[1])
                  for (f[2] = 0; f[2] < g.filter[2]; ++f[2]) {
                    bool inside = true;
                    for (int d = 0; d < 3; ++d) {
                      i[d] = o[d] * g.stride[d] - g.pad[d] + f[d] * g.dilation[d];
                      inside = inside && i[d] >= 0 && i[d] < g.in[d];
                    }
                    if (!inside) continue;
                    const std::int64_t ic = group * g.cg + c;
                    switch (kernel.operation) {
                      case Operation::kForward:
                        sum[dense(n, k, o)] += load(x[g.x_at(n, ic, i)]) * load(w[g.w_at(k, c, f)]);
                        break;
                      case Operation::kBackwardData:
                        sum[dense(n, ic, i)] += load(y[g.y_at(n, k, o)]) * load(w[g.w_at(k, c, f)]);
                        break;
                      case Operation::kBackwardFilter: {
                        // dw is stored at the filter's (possibly flipped) position.
                        Extent3 stored = f;
                        if (g.flip)
                          for (int d = 0; d < 3; ++d) stored[d] = g.filter[d] - 1 - f[d];
                        sum[dense(k, c, stored)] +=
                            load(y[g.y_at(n, k, o)]) * load(x[g.x_at(n, ic, i)]);
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
  for (std::int64_t a = 0; a < outer; ++a)
    for (std::int64_t b = 0; b < channels; ++b)
      for (i[0] = 0; i[0] < extent[0]; ++i[0])
        for (i[1] = 0; i[1] < extent[1]; ++i[1])
          for (i[2] = 0; i[2] < extent[2]; ++i[2]) {
            T& target = out[a * strides[0] + b * strides[1] + i[0] * strides[2] +
                            i[1] * strides[3] + i[2] * strides[4]];
            const double value = scaling.alpha * sum[dense(a, b, i)];
            target = store<T>(scaling.beta == 0 ? value : value + scaling.beta * load(target));
          }
}

}  // namespace

void reference_convolution(const KernelKey& kernel, const Tensors& tensors, Scaling scaling) {
  if (!is_reference_problem(kernel.problem))
    throw std::invalid_argument(
        "reference_convolution: not a 1-, 2- or 3-d float, double, half or bfloat16 problem");
  switch (kernel.problem.data_type) {
    case DataType::kDouble:
      return run_reference<double>(kernel, tensors, scaling);
    case DataType::kHalf:
      return run_reference<Half>(kernel, tensors, scaling);
    case DataType::kBFloat16:
      return run_reference<BFloat16>(kernel, tensors, scaling);
    default:
      return run_reference<float>(kernel, tensors, scaling);
  }
}

}  // namespace ucudnn::cpu
