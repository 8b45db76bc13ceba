#pragma once
// Winograd/Cook-Toom minimal filtering F(m, r) generated from interpolation points, as the
// paper on convolution for multicores (../shared/papers/002_*) does for any tile and
// dimension, instead of hand-typed tables: with the points p_0..p_{a-2} and infinity
// (a = m + r - 1),
//   A^T[i][j] = p_j^i,  G[j][k] = p_j^k / prod_{l != j} (p_j - p_l)   (the point at infinity:
//   the last row of G and column of A^T pick the highest coefficient),
// and B^T solved from the defining identity y = A^T [(G g) . (B^T d)] = d (*) g (the
// correlation of d, of length a, with g), checked to rounding before use.
//
// The points decide float32 accuracy: the paper's {0, +-1, +-1/3} for F(4, 3) is about 4x
// less accurate than {0, +-1, +-1/2} (winograd_points).
#include <span>
#include <vector>

namespace ucudnn::cpu {

struct WinogradTransforms {
  int m = 0, r = 0, alpha = 0;
  std::vector<double> at;  // m x alpha, row-major
  std::vector<double> g;   // alpha x r
  std::vector<double> bt;  // alpha x alpha
};

// `points`: alpha - 1 distinct finite points. Throws std::invalid_argument when they are not
// distinct or B^T cannot be solved to rounding.
WinogradTransforms generate_winograd_transforms(int m, int r, std::span<const double> points);

// The finite points ucudnn uses for F(m, r): 0, 1, -1, 1/2, -1/2, 2, -2, ... in that order,
// the small magnitudes first (m + r - 2 of them).
std::vector<double> winograd_points(int m, int r);

}  // namespace ucudnn::cpu
