#include "solvers/winograd.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <tuple>
#include <utility>

#include "gemm.h"
#include "geometry.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// The transforms work on blocks of 16 channels, one per lane, written with GCC vector
// extensions rather than left to the auto-vectorizer: the build has no -march, so each
// kernel is compiled for AVX-512, AVX2 and the x86-64 baseline and picked at run time. A
// 16-float vector is one AVX-512 register, two AVX or four SSE ones; only the transposes
// between NCHW rows and channel blocks need the native width (kW) spelled out.
constexpr int kLanes = 16;
typedef float Vec __attribute__((vector_size(kLanes * sizeof(float))));
typedef float Vec8 __attribute__((vector_size(8 * sizeof(float))));
typedef float Vec4 __attribute__((vector_size(4 * sizeof(float))));

template <int kW>
struct Native;
template <>
struct Native<16> {
  using V = Vec;
};
template <>
struct Native<8> {
  using V = Vec8;
};
template <>
struct Native<4> {
  using V = Vec4;
};

#define UCUDNN_INLINE inline __attribute__((always_inline))

// Unaligned loads and stores anywhere in float arrays (memcpy: no alignment or aliasing
// assumed; compiled to single vector moves). Vectors go by reference: a 64-byte vector by
// value would change the ABI with the instruction set.
template <typename V>
UCUDNN_INLINE void load(V& v, const float* p) {
  std::memcpy(&v, p, sizeof(V));
}
template <typename V>
UCUDNN_INLINE void store(float* p, const V& v) {
  std::memcpy(p, &v, sizeof(V));
}
UCUDNN_INLINE void copy(float* dst, const float* src) {
  std::memcpy(dst, src, sizeof(Vec));
}
// v[i] = the vector at p + i * stride.
template <int kN>
UCUDNN_INLINE void load_rows(Vec (&v)[kN], const float* p, std::ptrdiff_t stride) {
#pragma GCC unroll 8
  for (int i = 0; i < kN; ++i) load(v[i], p + i * stride);
}

// A non-temporal store of a 64-byte aligned vector, in native pieces: what the transforms
// write to the workspace is read back by another phase, long after it left the caches, so
// write-allocating it would only double the memory traffic.
template <int kW>
UCUDNN_INLINE void stream(float* p, const Vec& v) {
#if defined(__clang__)
  __builtin_nontemporal_store(v, reinterpret_cast<Vec*>(p));
#elif defined(__x86_64__) && defined(__GNUC__)
  // GCC has no non-temporal store builtin: spelled out for each native width.
  if constexpr (kW == 16) {
    asm("vmovntps %1, %0" : "=m"(*reinterpret_cast<Vec*>(p)) : "v"(v));
  } else if constexpr (kW == 8) {
    const Vec8 lo = __builtin_shufflevector(v, v, 0, 1, 2, 3, 4, 5, 6, 7);
    const Vec8 hi = __builtin_shufflevector(v, v, 8, 9, 10, 11, 12, 13, 14, 15);
    asm("vmovntps %1, %0" : "=m"(*reinterpret_cast<Vec8*>(p)) : "x"(lo));
    asm("vmovntps %1, %0" : "=m"(*reinterpret_cast<Vec8*>(p + 8)) : "x"(hi));
  } else {
    const Vec4 q0 = __builtin_shufflevector(v, v, 0, 1, 2, 3),
               q1 = __builtin_shufflevector(v, v, 4, 5, 6, 7);
    const Vec4 q2 = __builtin_shufflevector(v, v, 8, 9, 10, 11),
               q3 = __builtin_shufflevector(v, v, 12, 13, 14, 15);
    asm("movntps %1, %0" : "=m"(*reinterpret_cast<Vec4*>(p)) : "x"(q0));
    asm("movntps %1, %0" : "=m"(*reinterpret_cast<Vec4*>(p + 4)) : "x"(q1));
    asm("movntps %1, %0" : "=m"(*reinterpret_cast<Vec4*>(p + 8)) : "x"(q2));
    asm("movntps %1, %0" : "=m"(*reinterpret_cast<Vec4*>(p + 12)) : "x"(q3));
  }
#else
  store(p, v);
#endif
}

// Orders the non-temporal stores before whatever the thread does next (the pool's join).
UCUDNN_INLINE void stream_fence() {
#if defined(__x86_64__) && defined(__GNUC__)
  asm volatile("sfence" ::: "memory");
#endif
}

struct PlainStore {
  static UCUDNN_INLINE void put(float* p, const Vec& v) { store(p, v); }
};
template <int kW>
struct StreamStore {
  static UCUDNN_INLINE void put(float* p, const Vec& v) { stream<kW>(p, v); }
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
std::int64_t round_up(std::int64_t a, std::int64_t b) {
  return ceil_div(a, b) * b;
}
int clamp_int(std::int64_t value, std::int64_t low, std::int64_t high) {
  return static_cast<int>(std::clamp(value, low, high));
}

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

// A chunk of up to kMaxTiles tiles of one tile row of one image, as kLanes-channel
// vectors: the input rows under it (the band) are transposed once per channel block, each
// tile's patch is then read from the band with plain vector loads. Tiles of a chunk cover
// at most kBandColumns - 2 input columns.
constexpr int kChunkColumns = 64;
constexpr int kBandColumns = kChunkColumns + 16;
template <int kM>
constexpr int kMaxTiles = kChunkColumns / kM;

struct InputArgs {
  const float* in;                      // the image, channel 0
  std::int64_t channels;                // that exist, all groups
  std::int64_t first_block, end_block;  // channel blocks of kLanes
  std::int64_t plane, h, w;
  std::int64_t ih, iw;  // input row and column of the first tile's patch
  int tiles;
  float* v;  // V at position 0, the first tile, channel 0
  std::int64_t position_stride, tile_stride;
  bool stream;  // V is 64-byte aligned: store it non-temporally
};

struct OutputArgs {
  const float* m;  // M at position 0, the first tile, channel 0
  std::int64_t position_stride, tile_stride;
  std::int64_t channels;
  std::int64_t first_block, end_block;
  float* out;  // the image, channel 0
  std::int64_t plane, p, q;
  std::int64_t oh, ow;  // output row and column of the first tile
  int tiles;
  float alpha, beta;
  bool accumulate;  // beta != 0: read the output
};

struct FilterArgs {
  const float* w;  // tap (0, 0) of the first input channel
  std::int64_t ci_stride, r_stride, s_stride;
  int lanes;  // input channels in this block
  float* u;   // U at position 0, the output channel's row, the first input channel
  std::int64_t position_stride;
  bool stream;  // a whole block, 64-byte aligned: store it non-temporally
};

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

// The kernels compiled for each instruction set; kernels<kM>() picks the widest the CPU has.
struct Kernels {
  void (*input)(const InputArgs&);
  void (*output)(const OutputArgs&);
  void (*filter)(const FilterArgs&);
};

template <int kM>
void input_baseline(const InputArgs& a) {
  input_kernel<kM, 4>(a);
}
template <int kM>
void output_baseline(const OutputArgs& a) {
  output_kernel<kM, 4>(a);
}
template <int kM>
void filter_baseline(const FilterArgs& a) {
  filter_kernel<kM, 4>(a);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define UCUDNN_WINOGRAD_TARGET(suffix, isa, width)                         \
  template <int kM>                                                        \
  __attribute__((target(isa))) void input_##suffix(const InputArgs& a) {   \
    input_kernel<kM, width>(a);                                            \
  }                                                                        \
  template <int kM>                                                        \
  __attribute__((target(isa))) void output_##suffix(const OutputArgs& a) { \
    output_kernel<kM, width>(a);                                           \
  }                                                                        \
  template <int kM>                                                        \
  __attribute__((target(isa))) void filter_##suffix(const FilterArgs& a) { \
    filter_kernel<kM, width>(a);                                           \
  }
UCUDNN_WINOGRAD_TARGET(avx512, "avx512f", 16)
UCUDNN_WINOGRAD_TARGET(avx2, "avx2,fma", 8)
#undef UCUDNN_WINOGRAD_TARGET
#endif

template <int kM>
Kernels select_kernels() {
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f"))
    return {input_avx512<kM>, output_avx512<kM>, filter_avx512<kM>};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return {input_avx2<kM>, output_avx2<kM>, filter_avx2<kM>};
#endif
  return {input_baseline<kM>, output_baseline<kM>, filter_baseline<kM>};
}

template <int kM>
const Kernels& kernels() {
  static const Kernels selected = select_kernels<kM>();
  return selected;
}

// Both operations as a forward cross-correlation: `in` (n x groups*cg x h x w) with a
// 3x3 filter of kg x cg taps per group gives `out` (n x groups*kg x p x q). The filter tap
// (group, ko, ci, r, s) is at filter[f_base + group*f_group + ko*f_ko + ci*f_ci + r*f_r +
// s*f_s], strides that absorb convolution mode's flip and BackwardData's rotation and
// channel transposition.
struct Conv {
  std::int64_t n, groups, cg, kg, h, w, p, q, pad_h, pad_w;
  const float* in = nullptr;
  std::int64_t in_image;
  float* out = nullptr;
  std::int64_t out_image;
  const float* filter = nullptr;
  std::int64_t f_base, f_group, f_ko, f_ci, f_r, f_s;
};

Conv conv_of(const KernelKey& kernel, const Tensors& tensors) {
  const Geometry g(kernel.problem);
  Conv cv;
  cv.n = g.n;
  cv.groups = g.groups;
  cv.filter = static_cast<const float*>(tensors.w);
  cv.f_group = g.kg * g.ws[0];
  if (kernel.operation == Operation::kForward) {
    cv.cg = g.cg, cv.kg = g.kg, cv.h = g.h, cv.w = g.w, cv.p = g.p, cv.q = g.q;
    cv.pad_h = g.pad_h, cv.pad_w = g.pad_w;
    cv.in = static_cast<const float*>(tensors.x), cv.in_image = g.xs[0];
    cv.out = static_cast<float*>(tensors.y), cv.out_image = g.ys[0];
    cv.f_ko = g.ws[0], cv.f_ci = g.ws[1];
    cv.f_base = g.w_at(0, 0, 0, 0);
    cv.f_r = g.w_at(0, 0, 1, 0) - cv.f_base, cv.f_s = g.w_at(0, 0, 0, 1) - cv.f_base;
  } else {
    // dx = dy correlated with the filter rotated by 180 degrees, K and C swapped.
    cv.cg = g.kg, cv.kg = g.cg, cv.h = g.p, cv.w = g.q, cv.p = g.h, cv.q = g.w;
    cv.pad_h = g.r - 1 - g.pad_h, cv.pad_w = g.s - 1 - g.pad_w;
    cv.in = static_cast<const float*>(tensors.y), cv.in_image = g.ys[0];
    cv.out = static_cast<float*>(tensors.x), cv.out_image = g.xs[0];
    cv.f_ko = g.ws[1], cv.f_ci = g.ws[0];
    cv.f_base = g.w_at(0, 0, g.r - 1, g.s - 1);
    cv.f_r = g.w_at(0, 0, g.r - 2, g.s - 1) - cv.f_base,
    cv.f_s = g.w_at(0, 0, g.r - 1, g.s - 2) - cv.f_base;
  }
  return cv;
}

// Workspace layout, in floats: U[position][k][cg] (k over all groups), V[position][tile]
// [c_pad] and M[position][tile][k_pad], the channels of all groups rounded up to whole
// blocks. Each position's matrix starts 64 bytes past a whole number of blocks, so that
// every vector of U, V and M is 64-byte aligned when the workspace is, and the kA * kA
// positions of one tile, read or written together, do not all fall in the same cache set
// (as they would for power-of-two matrices, common here). Tiles are (image, tile row, tile
// column); the transforms take them in chunks of up to kChunkColumns / m tiles of one row.
struct Layout {
  std::int64_t positions, tile_rows, tile_cols, tiles, chunks_per_row, chunk_tiles, chunks;
  std::int64_t c_pad, k_pad, u_position, v_position, m_position;

  Layout(const Conv& cv, int m) {
    positions = (m + 2) * (m + 2);
    tile_rows = ceil_div(cv.p, m);
    tile_cols = ceil_div(cv.q, m);
    tiles = cv.n * tile_rows * tile_cols;
    chunks_per_row = ceil_div(tile_cols, kChunkColumns / m);
    chunk_tiles = ceil_div(tile_cols, chunks_per_row);
    chunks = cv.n * tile_rows * chunks_per_row;
    c_pad = round_up(cv.groups * cv.cg, kLanes);
    k_pad = round_up(cv.groups * cv.kg, kLanes);
    u_position = round_up(cv.groups * cv.kg * cv.cg, kLanes) + kLanes;
    v_position = tiles * c_pad + kLanes;
    m_position = tiles * k_pad + kLanes;
  }
  std::size_t bytes() const {
    return static_cast<std::size_t>(positions * (u_position + v_position + m_position)) *
           sizeof(float);
  }
};

// The tiles of chunk `index`: image, tile row, first tile column and count, first tile.
struct Chunk {
  std::int64_t image, row, col, tiles, first_tile;
  Chunk(const Layout& layout, std::int64_t index) {
    const std::int64_t per_image = layout.tile_rows * layout.chunks_per_row;
    image = index / per_image;
    row = index % per_image / layout.chunks_per_row;
    col = index % layout.chunks_per_row * layout.chunk_tiles;
    tiles = std::min(layout.chunk_tiles, layout.tile_cols - col);
    first_tile = (image * layout.tile_rows + row) * layout.tile_cols + col;
  }
};

// A transform's work items: every chunk times ranges of channel blocks, as many ranges as
// give each thread a few items when the chunks alone would not (small images, N = 1).
struct Split {
  std::int64_t chunks, blocks, ranges, blocks_per_range;
  Split(std::int64_t chunk_count, std::int64_t channels, unsigned threads)
      : chunks(chunk_count), blocks(ceil_div(channels, kLanes)) {
    ranges = std::clamp<std::int64_t>(ceil_div(4 * threads, chunks), 1, blocks);
    blocks_per_range = ceil_div(blocks, ranges);
  }
  std::size_t items() const { return static_cast<std::size_t>(chunks * ranges); }
  // Channel blocks [first, end) of item `item` (of chunk item / ranges); may be empty.
  std::pair<std::int64_t, std::int64_t> blocks_of(std::int64_t item) const {
    const std::int64_t first = item % ranges * blocks_per_range;
    return {first, std::min(first + blocks_per_range, blocks)};
  }
};

using Range = std::pair<std::int64_t, std::int64_t>;
Range range_of(std::size_t begin, std::size_t end) {
  return {static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)};
}

template <int kM>
class WinogradSolver final : public Solver {
 public:
  std::string_view name() const override {
    return kM == 2 ? "WINOGRAD_F2X2_3X3" : "WINOGRAD_F4X4_3X3";
  }

  bool applies(const KernelKey& kernel) const override {
    const ConvolutionProblem& problem = kernel.problem;
    if (!is_cpu_2d_problem(problem) || problem.data_type != DataType::kFloat) return false;
    const Geometry g(problem);
    if (g.r != 3 || g.s != 3 || g.stride_h != 1 || g.stride_w != 1 || g.dilation_h != 1 ||
        g.dilation_w != 1 || !g.x_images_packed() || !g.y_images_packed() || !g.w_packed())
      return false;
    switch (kernel.operation) {
      case Operation::kForward:
        return true;
      case Operation::kBackwardData:  // as a forward convolution with padding 2 - pad
        return g.pad_h <= g.r - 1 && g.pad_w <= g.s - 1;
      case Operation::kBackwardFilter:
        return false;
    }
    return false;
  }

  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    return Layout(conv_of(kernel, Tensors{}), kM).bytes();
  }

  void run(const KernelKey& kernel, const Tensors& tensors, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    const Conv cv = conv_of(kernel, tensors);
    const Layout layout(cv, kM);
    float* u = static_cast<float*>(workspace.data);
    float* v = u + layout.positions * layout.u_position;
    float* m = v + layout.positions * layout.v_position;
    transform_filter(cv, layout, u, pool);
    transform_input(cv, layout, v, pool);
    multiply(cv, layout, u, v, m, pool);
    transform_output(cv, layout, m, scaling, pool);
  }

 private:
  // U[position][ko][ci] = (G g G^T)[position] of filter (ko, ci), ko over all groups.
  static void transform_filter(const Conv& cv, const Layout& layout, float* u, ThreadPool& pool) {
    const Kernels& k = kernels<kM>();
    const std::int64_t blocks = ceil_div(cv.cg, kLanes), outputs = cv.groups * cv.kg;
    const bool aligned = reinterpret_cast<std::uintptr_t>(u) % 64 == 0 && cv.cg % kLanes == 0;
    const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
      for (auto [item, last] = range_of(begin, end); item < last; ++item) {
        const std::int64_t ko = item / blocks, ci = item % blocks * kLanes, group = ko / cv.kg;
        FilterArgs a;
        a.w = cv.filter + cv.f_base + group * cv.f_group + (ko % cv.kg) * cv.f_ko + ci * cv.f_ci;
        a.ci_stride = cv.f_ci, a.r_stride = cv.f_r, a.s_stride = cv.f_s;
        a.lanes = static_cast<int>(std::min<std::int64_t>(kLanes, cv.cg - ci));
        a.u = u + ko * cv.cg + ci;
        a.position_stride = layout.u_position;
        a.stream = a.lanes == kLanes && aligned;
        k.filter(a);
      }
      stream_fence();
    };
    pool.parallel_for(static_cast<std::size_t>(outputs * blocks), body);
  }

  // V[position][tile][c] = (B^T d B)[position] of the tile's patch in channel c.
  static void transform_input(const Conv& cv, const Layout& layout, float* v, ThreadPool& pool) {
    const Kernels& k = kernels<kM>();
    const Split split(layout.chunks, cv.groups * cv.cg, pool.size());
    const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
      for (auto [item, last] = range_of(begin, end); item < last; ++item) {
        const Chunk chunk(layout, item / split.ranges);
        InputArgs a;
        std::tie(a.first_block, a.end_block) = split.blocks_of(item);
        if (a.first_block >= a.end_block) continue;
        a.in = cv.in + chunk.image * cv.in_image;
        a.channels = cv.groups * cv.cg;
        a.plane = cv.h * cv.w, a.h = cv.h, a.w = cv.w;
        a.ih = chunk.row * kM - cv.pad_h, a.iw = chunk.col * kM - cv.pad_w;
        a.tiles = static_cast<int>(chunk.tiles);
        a.v = v + chunk.first_tile * layout.c_pad;
        a.position_stride = layout.v_position, a.tile_stride = layout.c_pad;
        a.stream = reinterpret_cast<std::uintptr_t>(v) % 64 == 0;
        k.input(a);
      }
      stream_fence();
    };
    pool.parallel_for(split.items(), body);
  }

  // M[position][:, group] = V[position][:, group] U[position][group]^T: one GEMM per
  // position and group, each thread running whole GEMMs single-threaded (faster here than
  // parallel_sgemm on each, which has every thread pack all of V), in row panels where the
  // GEMMs alone would leave threads idle at the end.
  static void multiply(const Conv& cv, const Layout& layout, const float* u, const float* v,
                       float* m, ThreadPool& pool) {
    const std::int64_t gemms = layout.positions * cv.groups, tiles = layout.tiles;
    const std::int64_t panels = std::clamp<std::int64_t>(
        pool.size() / std::gcd<std::int64_t>(gemms, pool.size()), 1, ceil_div(tiles, kLanes));
    const std::int64_t panel_rows = round_up(ceil_div(tiles, panels), kLanes);
    const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
      for (auto [item, last] = range_of(begin, end); item < last; ++item) {
        const std::int64_t gemm = item / panels, row = item % panels * panel_rows;
        const std::int64_t position = gemm / cv.groups, group = gemm % cv.groups;
        const std::int64_t rows = std::min(panel_rows, tiles - row);
        if (rows <= 0) continue;
        sgemm(Transpose::kNo, Transpose::kYes, rows, cv.kg, cv.cg, 1.0f,
              v + position * layout.v_position + row * layout.c_pad + group * cv.cg, layout.c_pad,
              u + position * layout.u_position + group * cv.kg * cv.cg, cv.cg, 0.0f,
              m + position * layout.m_position + row * layout.k_pad + group * cv.kg, layout.k_pad);
      }
    };
    pool.parallel_for(static_cast<std::size_t>(gemms * panels), body);
  }

  // out = alpha (A^T M A) + beta out, clipped to the output.
  static void transform_output(const Conv& cv, const Layout& layout, const float* m,
                               Scaling scaling, ThreadPool& pool) {
    const Kernels& k = kernels<kM>();
    const Split split(layout.chunks, cv.groups * cv.kg, pool.size());
    const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
      for (auto [item, last] = range_of(begin, end); item < last; ++item) {
        const Chunk chunk(layout, item / split.ranges);
        OutputArgs a;
        std::tie(a.first_block, a.end_block) = split.blocks_of(item);
        if (a.first_block >= a.end_block) continue;
        a.m = m + chunk.first_tile * layout.k_pad;
        a.position_stride = layout.m_position, a.tile_stride = layout.k_pad;
        a.channels = cv.groups * cv.kg;
        a.out = cv.out + chunk.image * cv.out_image;
        a.plane = cv.p * cv.q, a.p = cv.p, a.q = cv.q;
        a.oh = chunk.row * kM, a.ow = chunk.col * kM;
        a.tiles = static_cast<int>(chunk.tiles);
        a.alpha = static_cast<float>(scaling.alpha), a.beta = static_cast<float>(scaling.beta);
        a.accumulate = scaling.beta != 0;
        k.output(a);
      }
    };
    pool.parallel_for(split.items(), body);
  }
};

}  // namespace

const Solver& winograd_f2x2_3x3_solver() {
  static const WinogradSolver<2> solver;
  return solver;
}

const Solver& winograd_f4x4_3x3_solver() {
  static const WinogradSolver<4> solver;
  return solver;
}

}  // namespace ucudnn::cpu
