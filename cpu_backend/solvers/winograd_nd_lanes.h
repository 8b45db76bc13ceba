#pragma once
// The lane work of N-dimensional Winograd F(m^d, 3^d) (winograd_nd.cc): what a job reads (the
// forward view of the convolution, the tile grid, the transform-domain layout) and the filter,
// input and output transforms of 16 lanes (GCC vector extensions, winograd_vector.h), inlined
// into the per-instruction-set clones of winograd_nd.cc, the only file that includes this one.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "geometry_nd.h"
#include "kernels/winograd_vector.h"
#include "winograd_transforms.h"

namespace ucudnn::cpu::winograd_nd {

using winograd::kLanes;
using winograd::Vec;

constexpr int kR = 3;
constexpr int power(int base, int exponent) {
  return exponent == 0 ? 1 : base * power(base, exponent - 1);
}

// One forward convolution with stride 1, dilation 1, a 3^d filter, per group: x (N, groups *
// cin, in) -> y (N, groups * cout, out). Spatial dimensions as GeometryNd has them (the
// problem's in the last places).
struct ForwardView {
  std::int64_t n, groups, cin, cout;
  Extent3 in, out, pad;
  const float* x;
  const std::int64_t* xs;  // N, C, 3 spatial
  float* y;
  const std::int64_t* ys;
  // Filter element (group, co, ci, f) at w + group * w_group + co * w_out + ci * w_in + the
  // spatial offset of f, read reversed (extent - 1 - f) where `reversed`.
  const float* w;
  std::int64_t w_group, w_out, w_in;
  const std::int64_t* w_spatial;  // 3 strides
  Extent3 filter;
  bool reversed;
};

// The transforms of F(kM, 3) in float, generated once.
template <int kM>
struct Matrices {
  static constexpr int kA = kM + kR - 1;
  float at[kM * kA], g[kA * kR], bt[kA * kA];

  static const Matrices& get() {
    static const Matrices matrices;
    return matrices;
  }

 private:
  Matrices() {
    const auto t = generate_winograd_transforms(kM, kR, winograd_points(kM, kR));
    std::copy(t.at.begin(), t.at.end(), at);
    std::copy(t.g.begin(), t.g.end(), g);
    std::copy(t.bt.begin(), t.bt.end(), bt);
  }
};

// Applies mat (kOut x kIn, row-major) along each of the kRank dimensions of a dense block of
// kIn^kRank lane vectors, giving kOut^kRank of them, innermost dimension first.
template <int kRank, int kIn, int kOut>
UCUDNN_INLINE void transform_lanes(const float* mat, const Vec* in, Vec* out) {
  if constexpr (kRank == 1) {
#pragma GCC unroll 8
    for (int o = 0; o < kOut; ++o) {
      Vec sum = mat[o * kIn] * in[0];
#pragma GCC unroll 8
      for (int j = 1; j < kIn; ++j) sum += mat[o * kIn + j] * in[j];
      out[o] = sum;
    }
  } else {
    static_assert(kRank == 3);
    Vec a[kIn * kIn * kOut], b[kIn * kOut * kOut];
    for (int i = 0; i < kIn * kIn; ++i)
      transform_lanes<1, kIn, kOut>(mat, in + i * kIn, a + i * kOut);
    for (int i0 = 0; i0 < kIn; ++i0)
      for (int o = 0; o < kOut; ++o)
        for (int i2 = 0; i2 < kOut; ++i2) {
          Vec sum = mat[o * kIn] * a[(i0 * kIn) * kOut + i2];
#pragma GCC unroll 8
          for (int j = 1; j < kIn; ++j) sum += mat[o * kIn + j] * a[(i0 * kIn + j) * kOut + i2];
          b[(i0 * kOut + o) * kOut + i2] = sum;
        }
    constexpr int kPlane = kOut * kOut;
    for (int o = 0; o < kOut; ++o)
      for (int i = 0; i < kPlane; ++i) {
        Vec sum = mat[o * kIn] * b[i];
#pragma GCC unroll 8
        for (int j = 1; j < kIn; ++j) sum += mat[o * kIn + j] * b[j * kPlane + i];
        out[o * kPlane + i] = sum;
      }
  }
}

// Stores the first `lanes` lanes of v at p.
UCUDNN_INLINE void store_lanes(float* p, const Vec& v, int lanes) {
  if (lanes == kLanes)
    winograd::store(p, v);
  else
    std::memcpy(p, &v, static_cast<std::size_t>(lanes) * sizeof(float));
}

// The tiles of one image: count per spatial dimension; tile t of the flattened (N, tiles)
// order has image t / per_image and its first output position below.
struct TileGrid {
  Extent3 count;
  std::int64_t per_image;
  int tile[3];

  UCUDNN_INLINE void locate(std::int64_t t, std::int64_t& image, Extent3& origin) const {
    image = t / per_image;
    std::int64_t rest = t % per_image;
    for (int d = 2; d >= 0; --d) {
      origin[d] = rest % count[d] * tile[d];
      rest /= count[d];
    }
  }
};

// Where the transform-domain data lives: per point, U (cout x cin), V (cin x block) and M
// (cout x block), row-major. Consecutive points are one cache line further apart than their
// matrices need: the transforms write all points of a tile at once, and at a power-of-two
// distance those writes would all fall into one cache set.
struct Layout {
  std::int64_t block;  // tiles per block, the row length of V and M
  std::int64_t u_point, v_point, m_point;
  std::int64_t floats;  // the whole workspace

  Layout(std::int64_t points, std::int64_t cin, std::int64_t cout, std::int64_t block_tiles)
      : block(block_tiles),
        u_point(padded(cout * cin)),
        v_point(padded(cin * block_tiles)),
        m_point(padded(cout * block_tiles)),
        floats(points * (u_point + v_point + m_point)) {}

 private:
  static std::int64_t padded(std::int64_t floats) {
    return (floats + kLanes - 1) / kLanes * kLanes + kLanes;
  }
};

// Spatial positions of a kE^kRank window (the last kRank dimensions), flattened.
template <int kRank, int kE>
struct Window {
  static constexpr int kSize = power(kE, kRank);
  static UCUDNN_INLINE Extent3 position(int i) {
    Extent3 at = {0, 0, 0};
    for (int d = 2; d >= 3 - kRank; --d) at[d] = i % kE, i /= kE;
    return at;
  }
  // Element offsets of the window's positions in a tensor with these 3 spatial strides.
  static UCUDNN_INLINE void offsets(const std::int64_t* strides, std::int64_t (&out)[kSize]) {
    for (int i = 0; i < kSize; ++i) {
      const Extent3 at = position(i);
      out[i] = at[0] * strides[0] + at[1] * strides[1] + at[2] * strides[2];
    }
  }
};

// The lane work of F(kM^kRank, 3^kRank): filter, input and output transforms of 16 lanes.
template <int kM, int kRank>
struct Lanes {
  static constexpr int kA = kM + kR - 1;
  static constexpr int kPoints = power(kA, kRank);
  using Filter = Window<kRank, kR>;
  using Patch = Window<kRank, kA>;
  using Tile = Window<kRank, kM>;

  // The filter's tap offsets, reversed where the view says so.
  static UCUDNN_INLINE void filter_offsets(const ForwardView& v,
                                           std::int64_t (&out)[Filter::kSize]) {
    for (int f = 0; f < Filter::kSize; ++f) {
      const Extent3 at = Filter::position(f);
      out[f] = 0;
      for (int d = 0; d < 3; ++d)
        out[f] += (v.reversed ? v.filter[d] - 1 - at[d] : at[d]) * v.w_spatial[d];
    }
  }

  // U[p][co][ci0 + lane] for `lanes` input channels of output channel co.
  static UCUDNN_INLINE void filter(const ForwardView& v, const std::int64_t* taps,
                                   std::int64_t group, std::int64_t co, std::int64_t ci0, int lanes,
                                   const Layout& layout, float* u) {
    alignas(64) float raw[Filter::kSize][kLanes];
    const float* w = v.w + group * v.w_group + co * v.w_out + ci0 * v.w_in;
    for (int lane = 0; lane < kLanes; ++lane)
      for (int f = 0; f < Filter::kSize; ++f)
        raw[f][lane] = lane < lanes ? w[lane * v.w_in + taps[f]] : 0.0f;
    Vec in[Filter::kSize], out[kPoints];
    for (int f = 0; f < Filter::kSize; ++f) winograd::load(in[f], raw[f]);
    transform_lanes<kRank, kR, kA>(Matrices<kM>::get().g, in, out);
    for (int p = 0; p < kPoints; ++p)
      store_lanes(u + p * layout.u_point + co * v.cin + ci0, out[p], lanes);
  }

  // V[p][ci][t0 + lane] for `lanes` consecutive tiles from global tile `first`.
  static UCUDNN_INLINE void input(const ForwardView& v, const TileGrid& grid,
                                  const std::int64_t* patch, std::int64_t group, std::int64_t ci,
                                  std::int64_t first, int lanes, const Layout& layout, float* vt) {
    alignas(64) float raw[Patch::kSize][kLanes];
    for (int lane = lanes; lane < kLanes; ++lane)  // lanes past the block's tiles compute zeros
      for (int a = 0; a < Patch::kSize; ++a) raw[a][lane] = 0.0f;
    constexpr int kE0 = kRank == 3 ? kA : 1, kE1 = kE0, kE2 = kA;
    for (int lane = 0; lane < lanes; ++lane) {
      std::int64_t image;
      Extent3 origin;
      grid.locate(first + lane, image, origin);
      // The patch positions inside the image: [low, high) per dimension.
      int low[3], high[3];
      bool inside = true;
      for (int d = 0; d < 3; ++d) {
        origin[d] -= v.pad[d];
        const int extent = d == 2 ? kE2 : kE0;
        low[d] = static_cast<int>(std::clamp<std::int64_t>(-origin[d], 0, extent));
        high[d] = static_cast<int>(std::clamp<std::int64_t>(v.in[d] - origin[d], low[d], extent));
        inside = inside && low[d] == 0 && high[d] == extent;
      }
      const float* x = v.x + image * v.xs[0] + (group * v.cin + ci) * v.xs[1];
      const std::int64_t base = origin[0] * v.xs[2] + origin[1] * v.xs[3] + origin[2] * v.xs[4];
      if (inside) {
        for (int a = 0; a < Patch::kSize; ++a) raw[a][lane] = x[base + patch[a]];
        continue;
      }
      int a = 0;
      for (int a0 = 0; a0 < kE0; ++a0)
        for (int a1 = 0; a1 < kE1; ++a1) {
          const bool row = a0 >= low[0] && a0 < high[0] && a1 >= low[1] && a1 < high[1];
          for (int a2 = 0; a2 < kE2; ++a2, ++a)
            raw[a][lane] = row && a2 >= low[2] && a2 < high[2] ? x[base + patch[a]] : 0.0f;
        }
    }
    Vec in[kPoints], out[kPoints];
    for (int a = 0; a < kPoints; ++a) winograd::load(in[a], raw[a]);
    transform_lanes<kRank, kA, kA>(Matrices<kM>::get().bt, in, out);
    const std::int64_t t0 = first % layout.block;  // blocks start at multiples of the block
    for (int p = 0; p < kPoints; ++p)
      store_lanes(vt + p * layout.v_point + ci * layout.block + t0, out[p], lanes);
  }

  // y = alpha (A^T M A) + beta y for `lanes` consecutive tiles of output channel co.
  static UCUDNN_INLINE void output(const ForwardView& v, const TileGrid& grid,
                                   const std::int64_t* tile, std::int64_t group, std::int64_t co,
                                   std::int64_t first, int lanes, const Layout& layout,
                                   const float* mt, float alpha, float beta) {
    const std::int64_t t0 = first % layout.block;
    Vec in[kPoints], out[Tile::kSize];
    for (int p = 0; p < kPoints; ++p)
      winograd::load(in[p], mt + p * layout.m_point + co * layout.block + t0);
    transform_lanes<kRank, kA, kM>(Matrices<kM>::get().at, in, out);
    alignas(64) float result[Tile::kSize][kLanes];
    for (int i = 0; i < Tile::kSize; ++i) winograd::store(result[i], out[i]);
    for (int lane = 0; lane < lanes; ++lane) {
      std::int64_t image;
      Extent3 origin;
      grid.locate(first + lane, image, origin);
      float* y = v.y + image * v.ys[0] + (group * v.cout + co) * v.ys[1] + origin[0] * v.ys[2] +
                 origin[1] * v.ys[3] + origin[2] * v.ys[4];
      bool inside = true;
      for (int d = 3 - kRank; d < 3; ++d) inside = inside && origin[d] + kM <= v.out[d];
      for (int i = 0; i < Tile::kSize; ++i) {
        if (!inside) {
          const Extent3 at = Tile::position(i);
          if (origin[0] + at[0] >= v.out[0] || origin[1] + at[1] >= v.out[1] ||
              origin[2] + at[2] >= v.out[2])
            continue;
        }
        float& target = y[tile[i]];
        target = beta == 0 ? alpha * result[i][lane] : alpha * result[i][lane] + beta * target;
      }
    }
  }
};

}  // namespace ucudnn::cpu::winograd_nd
