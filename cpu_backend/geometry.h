#pragma once
// The 2-d convolution of a kernel key in named integers, and element offsets into its
// strided tensors. Filter index (r, s) of the cross-correlation maps to the stored filter
// at filter_r(r), filter_s(s): flipped in convolution mode.
#include <cstdint>

#include "channel_counts.h"
#include "core/kernel_key.h"

namespace ucudnn::cpu {

struct Geometry : ChannelCounts {
  std::int64_t h, w;  // input height, width
  std::int64_t r, s;  // filter height, width
  std::int64_t p, q;  // output height, width
  std::int64_t pad_h, pad_w, stride_h, stride_w, dilation_h, dilation_w;
  bool flip;                         // convolution mode
  std::int64_t xs[4], ws[4], ys[4];  // strides of x, w, y

  explicit Geometry(const ConvolutionProblem& problem)
      : ChannelCounts(problem),
        h(problem.x.dims[2]),
        w(problem.x.dims[3]),
        r(problem.w.dims[2]),
        s(problem.w.dims[3]),
        p(problem.y.dims[2]),
        q(problem.y.dims[3]),
        pad_h(problem.padding[0]),
        pad_w(problem.padding[1]),
        stride_h(problem.stride[0]),
        stride_w(problem.stride[1]),
        dilation_h(problem.dilation[0]),
        dilation_w(problem.dilation[1]),
        flip(problem.mode == ConvolutionMode::kConvolution) {
    for (int i = 0; i < 4; ++i) {
      xs[i] = problem.x.strides[i];
      ws[i] = problem.w.strides[i];
      ys[i] = problem.y.strides[i];
    }
  }

  std::int64_t x_at(std::int64_t in, std::int64_t ic, std::int64_t ih, std::int64_t iw) const {
    return in * xs[0] + ic * xs[1] + ih * xs[2] + iw * xs[3];
  }
  // Filter element for output channel ok, in-group input channel ic, cross-correlation (fr, fs).
  std::int64_t w_at(std::int64_t ok, std::int64_t ic, std::int64_t fr, std::int64_t fs) const {
    return ok * ws[0] + ic * ws[1] + (flip ? r - 1 - fr : fr) * ws[2] +
           (flip ? s - 1 - fs : fs) * ws[3];
  }
  std::int64_t y_at(std::int64_t in, std::int64_t ok, std::int64_t op, std::int64_t oq) const {
    return in * ys[0] + ok * ys[1] + op * ys[2] + oq * ys[3];
  }

  // Is each image of x / y packed CHW (any N stride), the filter packed KCRS?
  bool x_images_packed() const { return xs[3] == 1 && xs[2] == w && xs[1] == h * w; }
  bool y_images_packed() const { return ys[3] == 1 && ys[2] == q && ys[1] == p * q; }
  bool w_packed() const {
    return ws[3] == 1 && ws[2] == s && ws[1] == r * s && ws[0] == cg * r * s;
  }

  // Direct-convolution multiply-adds x 2, the flop count used for GFLOP/s everywhere.
  double flops() const { return 2.0 * n * k * p * q * cg * r * s; }
};

// The output positions q in [0, columns) whose input position q * stride + offset lies in
// [0, width): the range where no padding check is needed.
struct ColumnRange {
  std::int64_t begin, end;
};
inline ColumnRange valid_columns(std::int64_t offset, std::int64_t stride, std::int64_t width,
                                 std::int64_t columns) {
  std::int64_t begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  std::int64_t end = width - offset <= 0 ? 0 : (width - offset + stride - 1) / stride;
  begin = begin < columns ? begin : columns;
  end = end < begin ? begin : (end > columns ? columns : end);
  return {begin, end};
}

// A 2-d (rank-4) problem of a data type the CPU backend computes.
bool is_cpu_2d_problem(const ConvolutionProblem& problem);

}  // namespace ucudnn::cpu
