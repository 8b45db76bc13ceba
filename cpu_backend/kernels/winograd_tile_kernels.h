#pragma once
// The bodies of the Winograd micro-kernels, templates over the tile size kM and the native
// vector width kW, meant to be instantiated only by winograd_kernels.cc inside functions
// compiled for one instruction set each: everything here is forced inline so that it is
// compiled with that function's target, never as a shared baseline copy.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/winograd_kernels.h"
#include "kernels/winograd_transforms_1d.h"
#include "kernels/winograd_transpose.h"
#include "kernels/winograd_vector.h"

namespace ucudnn::cpu::winograd {

UCUDNN_INLINE int clamp_int(std::int64_t value, std::int64_t low, std::int64_t high) {
  return static_cast<int>(std::clamp(value, low, high));
}

// V of each tile of the chunk in one channel block, from the band: B^T d along the patch's
// columns into t, then along t's rows into V. kA = kM + 2 is the tile size (alpha).
template <int kM, typename Store>
UCUDNN_INLINE void transform_tiles(const InputArgs& a, const float* band, std::int64_t c0,
                                   float* t) {
  constexpr int kA = kM + 2;
  for (int j = 0; j < a.tiles; ++j) {
    const float* d = band + j * kM * kLanes;
    for (int s = 0; s < kA; ++s)
      input_1d<kM>(d + s * kLanes, kBandColumns * kLanes, t + s * kLanes, kA * kLanes);
    float* v = a.v + j * a.tile_stride + c0;
    for (int r = 0; r < kA; ++r)
      input_1d<kM, Store>(t + r * kA * kLanes, kLanes, v + r * kA * a.position_stride,
                          a.position_stride);
  }
}

template <int kM, int kW>
UCUDNN_INLINE void input_kernel(const InputArgs& a) {
  constexpr int kA = kM + 2;
  alignas(64) float band[kA * kBandColumns * kLanes];
  alignas(64) float tr[kLanes * kLanes];
  alignas(64) float t[kA * kA * kLanes];
  const int width = a.tiles * kM + 2;
  // The band's rows and columns that lie inside the input; the rest is padding, zeros.
  const int r_lo = clamp_int(-a.ih, 0, kA), r_hi = clamp_int(a.h - a.ih, r_lo, kA);
  const int x_lo = clamp_int(-a.iw, 0, width), x_hi = clamp_int(a.w - a.iw, x_lo, width);
  for (int r = 0; r < kA; ++r) {
    float* row = band + r * kBandColumns * kLanes;
    if (r < r_lo || r >= r_hi || x_lo == x_hi) {
      std::memset(row, 0, sizeof(float) * width * kLanes);
    } else {
      std::memset(row, 0, sizeof(float) * x_lo * kLanes);
      std::memset(row + x_hi * kLanes, 0, sizeof(float) * (width - x_hi) * kLanes);
    }
  }
  // Narrow images whose band spans whole rows transpose them as one run (rows follow each
  // other in memory), not row by row in mostly empty vectors.
  const bool whole_rows = a.w < kLanes && x_lo == -a.iw && x_hi == a.w - a.iw;
  const int length = whole_rows ? (r_hi - r_lo) * static_cast<int>(a.w) : 0;
  int offset[kA * kLanes];  // of each element of the run in the band
  for (int i = 0; i < length; ++i)
    offset[i] =
        ((r_lo + i / static_cast<int>(a.w)) * kBandColumns + i % static_cast<int>(a.w) + x_lo) *
        kLanes;
  for (std::int64_t block = a.first_block; block < a.end_block; ++block) {
    const std::int64_t c0 = block * kLanes;
    const int lanes = clamp_int(a.channels - c0, 0, kLanes);
    const float* channel = a.in + c0 * a.plane;
    if (r_lo < r_hi && x_lo < x_hi) {
      if (whole_rows) {
        const float* first = channel + (a.ih + r_lo) * a.w;
        for (int f = 0; f < length; f += kLanes) {
          // Whole vectors, moved back over columns already done at the end of the run.
          const int start = std::max(0, std::min(f, length - kLanes)),
                    end = std::min(f + kLanes, length);
          transpose_in<kW>(first + start, a.plane, lanes, std::min(kLanes, length - start), tr);
          for (int i = f; i < end; ++i) copy(band + offset[i], tr + (i - start) * kLanes);
        }
      } else {
        for (int r = r_lo; r < r_hi; ++r) {
          const float* row = channel + (a.ih + r) * a.w;
          if (block + 1 < a.end_block && a.channels >= c0 + 2 * kLanes)
            for (int l = 0; l < kLanes; ++l)
              for (int x = x_lo; x < x_hi; x += kLanes)
                __builtin_prefetch(row + (kLanes + l) * a.plane + a.iw + x);
          for (int x = x_lo; x < x_hi; x += kLanes) {
            const int end = std::min(x + kLanes, x_hi);
            const std::int64_t column = std::max<std::int64_t>(0, std::min(a.iw + x, a.w - kLanes));
            transpose_in<kW>(row + column, a.plane, lanes,
                             static_cast<int>(std::min<std::int64_t>(kLanes, a.w - column)), tr);
            for (int i = x; i < end; ++i)
              copy(band + (r * kBandColumns + i) * kLanes, tr + (a.iw + i - column) * kLanes);
          }
        }
      }
    }
    if (a.stream)
      transform_tiles<kM, StreamStore<kW>>(a, band, c0, t);
    else
      transform_tiles<kM, PlainStore>(a, band, c0, t);
  }
}

template <int kM, int kW>
UCUDNN_INLINE void output_kernel(const OutputArgs& a) {
  constexpr int kA = kM + 2, kColumns = kMaxTiles<kM> * kM;
  alignas(64) float band[kM * kColumns * kLanes];
  alignas(64) float t[kM * kA * kLanes];
  alignas(64) float tr[kLanes * kLanes];
  alignas(64) float gathered[kLanes * kLanes];
  const int rows = clamp_int(a.p - a.oh, 0, kM), columns = clamp_int(a.q - a.ow, 0, a.tiles * kM);
  // Columns past the output are transposed with the rest, never stored.
  std::memset(band, 0, sizeof(band));
  std::memset(gathered, 0, sizeof(gathered));
  const bool whole_rows = a.q < kLanes && a.ow == 0 && columns == a.q;
  const int length = whole_rows ? rows * static_cast<int>(a.q) : 0;
  int offset[kM * kLanes];  // in the band of each element of the run
  for (int i = 0; i < length; ++i)
    offset[i] = (i / static_cast<int>(a.q) * kColumns + i % static_cast<int>(a.q)) * kLanes;
  for (std::int64_t block = a.first_block; block < a.end_block; ++block) {
    const std::int64_t c0 = block * kLanes;
    const int lanes = clamp_int(a.channels - c0, 0, kLanes);
    for (int j = 0; j < a.tiles; ++j) {
      const float* m = a.m + j * a.tile_stride + c0;
      if (j + 2 < a.tiles)
        for (int i = 0; i < kA * kA; ++i)
          __builtin_prefetch(m + 2 * a.tile_stride + i * a.position_stride);
      for (int s = 0; s < kA; ++s)
        output_1d<kM>(m + s * a.position_stride, kA * a.position_stride, t + s * kLanes,
                      kA * kLanes, 1.0f);
      for (int r = 0; r < kM; ++r)
        output_1d<kM>(t + r * kA * kLanes, kLanes, band + (r * kColumns + j * kM) * kLanes, kLanes,
                      a.alpha);
    }
    float* channel = a.out + c0 * a.plane;
    if (whole_rows) {
      float* first = channel + a.oh * a.q;
      for (int f = 0; f < length; f += kLanes) {
        // Without beta, the last vector moves back over elements already written (with the
        // same values) rather than being stored element by element.
        const int start = a.accumulate || length < kLanes ? f : std::min(f, length - kLanes);
        const int count = std::min(kLanes, length - start);
        for (int i = 0; i < count; ++i) copy(gathered + i * kLanes, band + offset[start + i]);
        transpose16<kW>(gathered, kLanes, tr, kLanes);
        write_out(tr, lanes, count, first + start, a.plane, a.accumulate, a.beta);
      }
    } else {
      for (int r = 0; r < rows; ++r) {
        float* row = channel + (a.oh + r) * a.q + a.ow;
        for (int x = 0; x < columns; x += kLanes) {
          const int start = a.accumulate || columns < kLanes ? x : std::min(x, columns - kLanes);
          transpose16<kW>(band + (r * kColumns + start) * kLanes, kLanes, tr, kLanes);
          write_out(tr, lanes, std::min(kLanes, columns - start), row + start, a.plane,
                    a.accumulate, a.beta);
        }
      }
    }
  }
}

template <int kM, int kW>
UCUDNN_INLINE void filter_kernel(const FilterArgs& a) {
  constexpr int kA = kM + 2;
  alignas(64) float g[9 * kLanes];
  alignas(64) float t[kA * 3 * kLanes];
  alignas(64) float u[kA * kA * kLanes];
  for (int lane = 0; lane < kLanes; ++lane)
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s)
        g[(r * 3 + s) * kLanes + lane] =
            lane < a.lanes ? a.w[lane * a.ci_stride + r * a.r_stride + s * a.s_stride] : 0.0f;
  for (int s = 0; s < 3; ++s) filter_1d<kM>(g + s * kLanes, 3 * kLanes, t + s * kLanes, 3 * kLanes);
  for (int r = 0; r < kA; ++r) {
    filter_1d<kM>(t + r * 3 * kLanes, kLanes, u + r * kA * kLanes, kLanes);
    for (int s = 0; s < kA; ++s) {
      float* row = u + (r * kA + s) * kLanes;
      Vec value;
      load(value, row);
      store(row, value * kFilterScale<kM>[r][s]);
    }
  }
  if (a.stream) {
    for (int i = 0; i < kA * kA; ++i) {
      Vec value;
      load(value, u + i * kLanes);
      stream<kW>(a.u + i * a.position_stride, value);
    }
  } else if (a.lanes == kLanes) {
    for (int i = 0; i < kA * kA; ++i) copy(a.u + i * a.position_stride, u + i * kLanes);
  } else {
    for (int i = 0; i < kA * kA; ++i)
      std::memcpy(a.u + i * a.position_stride, u + i * kLanes, sizeof(float) * a.lanes);
  }
}

}  // namespace ucudnn::cpu::winograd
