#pragma once
// Each 2-d Winograd transform is a 1-d transform applied along columns, then along rows;
// this header holds the 1-d ones, on lane vectors, so that the input, filter and output
// micro-kernels share one statement of the matrices and differ only in how they walk
// memory. The formulas are factored (shared sums and differences) rather than written as
// matrix products; the scalar reference in winograd_reference_kernels.cc keeps the plain
// matrices to check them against.
#include <cstddef>

#include "kernels/winograd_vector.h"

namespace ucudnn::cpu::winograd {

// One-dimensional transforms of kM + 2 (or 3) lane vectors at src, src + ss, ... into dst,
// dst + ds, ...: B^T d, A^T m and (the numerators of) G g. The matrices are Lavin & Gray's,
// F(4, 3) with the points 0, +-1, +-2 and infinity.
template <int kM, typename Store = PlainStore>
UCUDNN_INLINE void input_1d(const float* src, std::ptrdiff_t ss, float* dst, std::ptrdiff_t ds) {
  Vec d[kM + 2];
  load_rows(d, src, ss);
  if constexpr (kM == 2) {
    Store::put(dst, d[0] - d[2]);
    Store::put(dst + ds, d[1] + d[2]);
    Store::put(dst + 2 * ds, d[2] - d[1]);
    Store::put(dst + 3 * ds, d[1] - d[3]);
  } else {
    const Vec a = d[4] - 4.0f * d[2], b = d[3] - 4.0f * d[1];  // rows 1, 2
    const Vec c = d[4] - d[2], e = 2.0f * (d[3] - d[1]);       // rows 3, 4
    Store::put(dst, 4.0f * d[0] - 5.0f * d[2] + d[4]);
    Store::put(dst + ds, a + b);
    Store::put(dst + 2 * ds, a - b);
    Store::put(dst + 3 * ds, c + e);
    Store::put(dst + 4 * ds, c - e);
    Store::put(dst + 5 * ds, 4.0f * d[1] - 5.0f * d[3] + d[5]);
  }
}

template <int kM>
UCUDNN_INLINE void output_1d(const float* src, std::ptrdiff_t ss, float* dst, std::ptrdiff_t ds,
                             float scale) {
  Vec m[kM + 2];
  load_rows(m, src, ss);
  if constexpr (kM == 2) {
    store(dst, scale * (m[0] + m[1] + m[2]));
    store(dst + ds, scale * (m[1] - m[2] - m[3]));
  } else {
    const Vec s12 = m[1] + m[2], d12 = m[1] - m[2], s34 = m[3] + m[4], d34 = m[3] - m[4];
    store(dst, scale * (m[0] + s12 + s34));
    store(dst + ds, scale * (d12 + 2.0f * d34));
    store(dst + 2 * ds, scale * (s12 + 4.0f * s34));
    store(dst + 3 * ds, scale * (d12 + 8.0f * d34 + m[5]));
  }
}

template <int kM>
UCUDNN_INLINE void filter_1d(const float* src, std::ptrdiff_t ss, float* dst, std::ptrdiff_t ds) {
  Vec g[3];
  load_rows(g, src, ss);
  if constexpr (kM == 2) {
    store(dst, g[0]);
    store(dst + ds, g[0] + g[1] + g[2]);
    store(dst + 2 * ds, g[0] - g[1] + g[2]);
    store(dst + 3 * ds, g[2]);
  } else {
    const Vec even = g[0] + g[2], even4 = g[0] + 4.0f * g[2];
    store(dst, g[0]);
    store(dst + ds, -(even + g[1]));
    store(dst + 2 * ds, g[1] - even);
    store(dst + 3 * ds, even4 + 2.0f * g[1]);
    store(dst + 4 * ds, even4 - 2.0f * g[1]);
    store(dst + 5 * ds, g[2]);
  }
}

// 1 / (d_a d_b) for G's row denominators d: U is the product of integer combinations of
// the taps and one such factor.
template <int kM>
constexpr float kFilterScale[kM + 2][kM + 2] = {};
template <>
constexpr float kFilterScale<2>[4][4] = {{1, 1 / 2.0, 1 / 2.0, 1},
                                         {1 / 2.0, 1 / 4.0, 1 / 4.0, 1 / 2.0},
                                         {1 / 2.0, 1 / 4.0, 1 / 4.0, 1 / 2.0},
                                         {1, 1 / 2.0, 1 / 2.0, 1}};
template <>
constexpr float kFilterScale<4>[6][6] = {
    {1 / 16.0, 1 / 24.0, 1 / 24.0, 1 / 96.0, 1 / 96.0, 1 / 4.0},
    {1 / 24.0, 1 / 36.0, 1 / 36.0, 1 / 144.0, 1 / 144.0, 1 / 6.0},
    {1 / 24.0, 1 / 36.0, 1 / 36.0, 1 / 144.0, 1 / 144.0, 1 / 6.0},
    {1 / 96.0, 1 / 144.0, 1 / 144.0, 1 / 576.0, 1 / 576.0, 1 / 24.0},
    {1 / 96.0, 1 / 144.0, 1 / 144.0, 1 / 576.0, 1 / 576.0, 1 / 24.0},
    {1 / 4.0, 1 / 6.0, 1 / 6.0, 1 / 24.0, 1 / 24.0, 1}};

}  // namespace ucudnn::cpu::winograd
