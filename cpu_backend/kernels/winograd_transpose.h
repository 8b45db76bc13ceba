#pragma once
// Images are stored NCHW, one channel's row after another, while the Winograd micro-kernels
// compute on blocks of kLanes channels, one per lane: these register transposes move data
// between the two orders at the edges of each kernel. They are the only code whose shape
// depends on the native vector width kW.
#include <cstddef>
#include <utility>

#include "kernels/winograd_vector.h"

namespace ucudnn::cpu::winograd {

// Swaps one bit (kStride) of the row index with the same bit of the lane index in rows a
// and b = a + kStride; one such stage per bit transposes a kW x kW block in registers.
template <typename V, int kW, int kStride, std::size_t... I>
UCUDNN_INLINE void swap_pair(V* a, V* b, std::index_sequence<I...>) {
  const V x = *a, y = *b;
  *a = __builtin_shufflevector(x, y, ((I & kStride) ? kW + I - kStride : I)...);
  *b = __builtin_shufflevector(x, y, ((I & kStride) ? kW + I : I + kStride)...);
}

template <int kW, int kStride>
UCUDNN_INLINE void swap_stage(typename Native<kW>::V* rows) {
#pragma GCC unroll 16
  for (int i = 0; i < kW; ++i)
    if (!(i & kStride))
      swap_pair<typename Native<kW>::V, kW, kStride>(rows + i, rows + i + kStride,
                                                     std::make_index_sequence<kW>{});
}

// dst[j * ds + i] = src[i * ss + j] for i, j < 16, in kW x kW blocks.
template <int kW>
UCUDNN_INLINE void transpose16(const float* src, std::ptrdiff_t ss, float* dst, std::ptrdiff_t ds) {
  using V = typename Native<kW>::V;
  for (int bi = 0; bi < kLanes; bi += kW)
    for (int bj = 0; bj < kLanes; bj += kW) {
      V rows[kW];
#pragma GCC unroll 16
      for (int i = 0; i < kW; ++i) load(rows[i], src + (bi + i) * ss + bj);
      if constexpr (kW >= 16) swap_stage<kW, 8>(rows);
      if constexpr (kW >= 8) swap_stage<kW, 4>(rows);
      swap_stage<kW, 2>(rows);
      swap_stage<kW, 1>(rows);
#pragma GCC unroll 16
      for (int j = 0; j < kW; ++j) store(dst + (bj + j) * ds + bi, rows[j]);
    }
}

// tr[j][i] = src[i * ss + j] for channel rows i < rows and columns j < cols, 0 elsewhere.
template <int kW>
UCUDNN_INLINE void transpose_in(const float* src, std::ptrdiff_t ss, int rows, int cols,
                                float* tr) {
  if (rows == kLanes && cols == kLanes) {
    transpose16<kW>(src, ss, tr, kLanes);
    return;
  }
  alignas(64) float padded[kLanes * kLanes];
  for (int i = 0; i < kLanes; ++i)
    for (int j = 0; j < kLanes; ++j)
      padded[i * kLanes + j] = i < rows && j < cols ? src[i * ss + j] : 0.0f;
  transpose16<kW>(padded, kLanes, tr, kLanes);
}

// dst[l * ss + i] = tr[l][i] (+ beta * dst[l * ss + i] when accumulating), l < rows,
// i < cols.
UCUDNN_INLINE void write_out(const float* tr, int rows, int cols, float* dst, std::ptrdiff_t ss,
                             bool accumulate, float beta) {
  if (cols == kLanes) {
    for (int l = 0; l < rows; ++l, dst += ss) {
      Vec value, old;
      load(value, tr + l * kLanes);
      if (accumulate) {
        load(old, dst);
        value += beta * old;
      }
      store(dst, value);
    }
  } else {
    for (int l = 0; l < rows; ++l, dst += ss)
      for (int i = 0; i < cols; ++i)
        dst[i] = accumulate ? tr[l * kLanes + i] + beta * dst[i] : tr[l * kLanes + i];
  }
}

}  // namespace ucudnn::cpu::winograd
