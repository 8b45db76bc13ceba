#pragma once
// A convolution of spatial rank 1 to 3 in named integers, for the N-dimensional solvers
// (video and volumetric data: C3D's 3x3x3 layers). Spatial dimensions are kept as three,
// the problem's d = rank dimensions in the last d places and 1 before them (padding 0,
// stride and dilation 1, stride 0 in memory), so that one loop nest of depth 3 serves every
// rank. geometry.h is the 2-d solvers' specialized view of the same thing.
#include <array>
#include <cstdint>

#include "channel_counts.h"
#include "core/kernel_key.h"

namespace ucudnn::cpu {

using Extent3 = std::array<std::int64_t, 3>;

struct GeometryNd : ChannelCounts {
  static constexpr int kMaxRank = 3;

  int rank;
  Extent3 in, filter, out;  // spatial sizes: input, filter, output
  Extent3 pad, stride, dilation;
  bool flip;                         // convolution mode: filter index f reads filter - 1 - f
  std::int64_t xs[5], ws[5], ys[5];  // strides of x, w, y: N (K for w), C, then 3 spatial

  explicit GeometryNd(const ConvolutionProblem& problem);

  static std::int64_t volume(const Extent3& e) { return e[0] * e[1] * e[2]; }
  std::int64_t x_at(std::int64_t in_n, std::int64_t in_c, const Extent3& i) const {
    return in_n * xs[0] + in_c * xs[1] + i[0] * xs[2] + i[1] * xs[3] + i[2] * xs[4];
  }
  // The stored filter element of cross-correlation position f.
  std::int64_t w_at(std::int64_t out_k, std::int64_t in_c, const Extent3& f) const {
    std::int64_t at = out_k * ws[0] + in_c * ws[1];
    for (int d = 0; d < 3; ++d) at += (flip ? filter[d] - 1 - f[d] : f[d]) * ws[2 + d];
    return at;
  }
  std::int64_t y_at(std::int64_t out_n, std::int64_t out_k, const Extent3& o) const {
    return out_n * ys[0] + out_k * ys[1] + o[0] * ys[2] + o[1] * ys[3] + o[2] * ys[4];
  }

  // Each image of x / y packed C, spatial (any N stride); the filter packed K, C, spatial.
  bool x_images_packed() const;
  bool y_images_packed() const;
  bool w_packed() const;

  double flops() const {
    return 2.0 * static_cast<double>(n * k * cg) * static_cast<double>(volume(out)) *
           static_cast<double>(volume(filter));
  }
};

// A problem of spatial rank 1 to 3 and of a data type the CPU backend computes.
bool is_cpu_nd_problem(const ConvolutionProblem& problem);

}  // namespace ucudnn::cpu
