#include "winograd_transforms.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ucudnn::cpu {

namespace {

// Solves the square system a x = b (n x n, row-major) by Gaussian elimination with partial
// pivoting in long double.
std::vector<long double> solve(std::vector<long double> a, std::vector<long double> b, int n) {
  for (int col = 0; col < n; ++col) {
    int pivot = col;
    for (int row = col + 1; row < n; ++row)
      if (std::fabs(a[row * n + col]) > std::fabs(a[pivot * n + col])) pivot = row;
    if (std::fabs(a[pivot * n + col]) < 1e-300L)
      throw std::invalid_argument("Winograd transforms: singular system");
    if (pivot != col) {
      for (int k = 0; k < n; ++k) std::swap(a[col * n + k], a[pivot * n + k]);
      std::swap(b[col], b[pivot]);
    }
    for (int row = col + 1; row < n; ++row) {
      const long double factor = a[row * n + col] / a[col * n + col];
      for (int k = col; k < n; ++k) a[row * n + k] -= factor * a[col * n + k];
      b[row] -= factor * b[col];
    }
  }
  std::vector<long double> x(n);
  for (int row = n - 1; row >= 0; --row) {
    long double sum = b[row];
    for (int k = row + 1; k < n; ++k) sum -= a[row * n + k] * x[k];
    x[row] = sum / a[row * n + row];
  }
  return x;
}

}  // namespace

WinogradTransforms generate_winograd_transforms(int m, int r, std::span<const double> points) {
  WinogradTransforms t;
  t.m = m, t.r = r, t.alpha = m + r - 1;
  const int a = t.alpha;
  if (m < 1 || r < 1 || static_cast<int>(points.size()) != a - 1)
    throw std::invalid_argument("Winograd transforms: F(" + std::to_string(m) + ", " +
                                std::to_string(r) + ") needs " + std::to_string(a - 1) +
                                " finite points");
  t.at.assign(static_cast<std::size_t>(m * a), 0.0);
  t.g.assign(static_cast<std::size_t>(a * r), 0.0);
  for (int j = 0; j < a - 1; ++j) {
    long double product = 1;
    for (int l = 0; l < a - 1; ++l)
      if (l != j) product *= static_cast<long double>(points[j]) - points[l];
    if (product == 0) throw std::invalid_argument("Winograd transforms: points not distinct");
    for (int i = 0; i < m; ++i) t.at[i * a + j] = std::pow(points[j], i);
    for (int k = 0; k < r; ++k)
      t.g[j * r + k] =
          static_cast<double>(std::pow(static_cast<long double>(points[j]), k) / product);
  }
  t.at[(m - 1) * a + (a - 1)] = 1;  // the point at infinity
  t.g[(a - 1) * r + (r - 1)] = 1;

  // Column `col` of B^T: sum_j AT[i][j] G[j][k] b_j = [col == i + k] for every (i, k), an
  // overdetermined but consistent system, solved through its normal equations.
  std::vector<long double> e(static_cast<std::size_t>(m * r * a));
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < r; ++k)
      for (int j = 0; j < a; ++j)
        e[(i * r + k) * a + j] = static_cast<long double>(t.at[i * a + j]) * t.g[j * r + k];
  t.bt.assign(static_cast<std::size_t>(a * a), 0.0);
  for (int col = 0; col < a; ++col) {
    std::vector<long double> normal(static_cast<std::size_t>(a * a), 0), rhs(a, 0);
    for (int q = 0; q < m * r; ++q) {
      const long double target = (q / r + q % r) == col ? 1 : 0;
      for (int j = 0; j < a; ++j) {
        rhs[j] += e[q * a + j] * target;
        for (int l = 0; l < a; ++l) normal[j * a + l] += e[q * a + j] * e[q * a + l];
      }
    }
    const auto b = solve(normal, rhs, a);
    for (int q = 0; q < m * r; ++q) {
      long double sum = 0;
      for (int j = 0; j < a; ++j) sum += e[q * a + j] * b[j];
      const long double target = (q / r + q % r) == col ? 1 : 0;
      if (std::fabs(sum - target) > 1e-9L)
        throw std::invalid_argument("Winograd transforms: B^T does not solve F(" +
                                    std::to_string(m) + ", " + std::to_string(r) + ")");
    }
    for (int j = 0; j < a; ++j) t.bt[j * a + col] = static_cast<double>(b[j]);
  }
  return t;
}

std::vector<double> winograd_points(int m, int r) {
  std::vector<double> points = {0};
  for (double magnitude : {1.0, 0.5, 2.0, 0.25, 4.0, 0.125, 8.0}) {
    points.push_back(magnitude);
    points.push_back(-magnitude);
  }
  points.resize(static_cast<std::size_t>(m + r - 2));
  return points;
}

}  // namespace ucudnn::cpu
