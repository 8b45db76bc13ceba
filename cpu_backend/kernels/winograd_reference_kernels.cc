// The Winograd micro-kernels written the obvious way, element by element, with the
// transform matrices spelled out and products computed in double: the optimized variants
// factor the matrices, transpose in registers and skip work at the edges, and these loops
// are what they are checked against. Portable; never used by the solvers.
#include <cstdint>

#include "kernels/winograd_kernels.h"

namespace ucudnn::cpu::winograd {

namespace {

// Lavin & Gray's matrices: B^T (kA x kA), G (kA x 3) and A^T (kM x kA), kA = kM + 2.
template <int kM>
struct Matrices;
template <>
struct Matrices<2> {
  static constexpr double bt[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
  static constexpr double g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static constexpr double at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
};
template <>
struct Matrices<4> {
  static constexpr double bt[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0},
                                      {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0},
                                      {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
  static constexpr double g[6][3] = {{1 / 4.0, 0, 0},
                                     {-1 / 6.0, -1 / 6.0, -1 / 6.0},
                                     {-1 / 6.0, 1 / 6.0, -1 / 6.0},
                                     {1 / 24.0, 1 / 12.0, 1 / 6.0},
                                     {1 / 24.0, -1 / 12.0, 1 / 6.0},
                                     {0, 0, 1}};
  static constexpr double at[4][6] = {
      {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};
};

// out = left x in x right^T for a (rows x inner) left and (cols x inner) right.
template <int kRows, int kCols, int kInnerRows, int kInnerCols>
void sandwich(const double (&left)[kRows][kInnerRows], const double (&in)[kInnerRows][kInnerCols],
              const double (&right)[kCols][kInnerCols], double (&out)[kRows][kCols]) {
  for (int i = 0; i < kRows; ++i)
    for (int j = 0; j < kCols; ++j) {
      double sum = 0;
      for (int a = 0; a < kInnerRows; ++a)
        for (int b = 0; b < kInnerCols; ++b) sum += left[i][a] * in[a][b] * right[j][b];
      out[i][j] = sum;
    }
}

template <int kM>
void reference_input(const InputArgs& a) {
  constexpr int kA = kM + 2;
  for (std::int64_t c = a.first_block * kLanes; c < a.end_block * kLanes; ++c)
    for (int tile = 0; tile < a.tiles; ++tile) {
      double d[kA][kA], v[kA][kA];
      for (int r = 0; r < kA; ++r)
        for (int s = 0; s < kA; ++s) {
          const std::int64_t y = a.ih + r, x = a.iw + tile * kM + s;
          const bool inside = c < a.channels && y >= 0 && y < a.h && x >= 0 && x < a.w;
          d[r][s] = inside ? a.in[c * a.plane + y * a.w + x] : 0.0;
        }
      sandwich(Matrices<kM>::bt, d, Matrices<kM>::bt, v);
      for (int r = 0; r < kA; ++r)
        for (int s = 0; s < kA; ++s)
          a.v[(r * kA + s) * a.position_stride + tile * a.tile_stride + c] =
              static_cast<float>(v[r][s]);
    }
}

template <int kM>
void reference_output(const OutputArgs& a) {
  constexpr int kA = kM + 2;
  for (std::int64_t c = a.first_block * kLanes; c < a.end_block * kLanes && c < a.channels; ++c)
    for (int tile = 0; tile < a.tiles; ++tile) {
      double m[kA][kA], y[kM][kM];
      for (int r = 0; r < kA; ++r)
        for (int s = 0; s < kA; ++s)
          m[r][s] = a.m[(r * kA + s) * a.position_stride + tile * a.tile_stride + c];
      sandwich(Matrices<kM>::at, m, Matrices<kM>::at, y);
      for (int r = 0; r < kM; ++r)
        for (int s = 0; s < kM; ++s) {
          const std::int64_t row = a.oh + r, column = a.ow + tile * kM + s;
          if (row >= a.p || column >= a.q) continue;
          float& out = a.out[c * a.plane + row * a.q + column];
          const double old = a.accumulate ? a.beta * static_cast<double>(out) : 0.0;
          out = static_cast<float>(a.alpha * y[r][s] + old);
        }
    }
}

template <int kM>
void reference_filter(const FilterArgs& a) {
  constexpr int kA = kM + 2;
  for (int lane = 0; lane < a.lanes; ++lane) {
    double g[3][3], u[kA][kA];
    for (int r = 0; r < 3; ++r)
      for (int s = 0; s < 3; ++s)
        g[r][s] = a.w[lane * a.ci_stride + r * a.r_stride + s * a.s_stride];
    sandwich(Matrices<kM>::g, g, Matrices<kM>::g, u);
    for (int r = 0; r < kA; ++r)
      for (int s = 0; s < kA; ++s)
        a.u[(r * kA + s) * a.position_stride + lane] = static_cast<float>(u[r][s]);
  }
}

}  // namespace

KernelVariant reference_kernel_variant(int m) {
  if (m == 2)
    return {"scalar_reference", reference_input<2>, reference_output<2>, reference_filter<2>};
  return {"scalar_reference", reference_input<4>, reference_output<4>, reference_filter<4>};
}

}  // namespace ucudnn::cpu::winograd
