// The generated Winograd transforms: exact in float64 for any tile, and the interpolation
// points' effect on float32 accuracy; the N-d solvers' accuracy per variant in 3-d.
#include "winograd_transforms.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "reference.h"
#include "solver_registry.h"
#include "support/random_seed.h"
#include "thread_pool.h"

namespace ucudnn::cpu {
namespace {

// y = A^T [(G g) . (B^T d)], each product rounded to T.
template <typename T>
std::vector<double> winograd_1d(const WinogradTransforms& t, const std::vector<double>& d,
                                const std::vector<double>& g) {
  const int a = t.alpha;
  std::vector<T> u(a), v(a);
  for (int j = 0; j < a; ++j) {
    T su = 0, sv = 0;
    for (int k = 0; k < t.r; ++k) su += static_cast<T>(t.g[j * t.r + k]) * static_cast<T>(g[k]);
    for (int l = 0; l < a; ++l) sv += static_cast<T>(t.bt[j * a + l]) * static_cast<T>(d[l]);
    u[j] = su, v[j] = sv;
  }
  std::vector<double> y(t.m);
  for (int i = 0; i < t.m; ++i) {
    T sum = 0;
    for (int j = 0; j < a; ++j) sum += static_cast<T>(t.at[i * a + j]) * (u[j] * v[j]);
    y[i] = sum;
  }
  return y;
}

// Normwise error of F(m, r) in T over random trials, against the exact correlation.
template <typename T>
double trial_error(const WinogradTransforms& t, testing::SeededRandom& random, int trials) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  double difference = 0, norm = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> d(t.alpha), g(t.r);
    for (auto& e : d) e = uniform(random.engine());
    for (auto& e : g) e = uniform(random.engine());
    const auto y = winograd_1d<T>(t, d, g);
    for (int i = 0; i < t.m; ++i) {
      double exact = 0;
      for (int k = 0; k < t.r; ++k) exact += d[i + k] * g[k];
      difference += (y[i] - exact) * (y[i] - exact);
      norm += exact * exact;
    }
  }
  return std::sqrt(difference / norm);
}

TEST(WinogradTransforms, GeneratedFromPointsAreExactInDouble) {
  testing::SeededRandom random;
  for (auto [m, r] : {std::pair{2, 3}, {4, 3}, {6, 3}, {2, 5}, {3, 2}}) {
    SCOPED_TRACE("F(" + std::to_string(m) + ", " + std::to_string(r) + ")");
    const auto t = generate_winograd_transforms(m, r, winograd_points(m, r));
    EXPECT_EQ(t.alpha, m + r - 1);
    EXPECT_LT(trial_error<double>(t, random, 200), 1e-13);
  }
  // F(2, 3) from {0, 1, -1}: Lavin and Gray's A^T (up to the order of the points).
  const auto f23 = generate_winograd_transforms(2, 3, winograd_points(2, 3));
  const std::vector<double> at = {1, 1, 1, 0, 0, 1, -1, 1};
  EXPECT_EQ(f23.at, at);
  EXPECT_THROW(generate_winograd_transforms(2, 3, std::vector<double>{0, 1, 1}),
               std::invalid_argument);
  EXPECT_THROW(generate_winograd_transforms(2, 3, std::vector<double>{0, 1}),
               std::invalid_argument);
}

// The paper's points for F(4, 3), {0, +-1, +-1/3}, against ours, {0, +-1, +-1/2}, in float32:
// about 1.8x the error in one dimension, compounding per dimension (about 3x in 2-d, 5x in 3-d).
TEST(WinogradTransforms, OurPointsAreMoreAccurateInFloatThanThePapers) {
  testing::SeededRandom random;
  const auto ours = generate_winograd_transforms(4, 3, winograd_points(4, 3));
  const auto papers =
      generate_winograd_transforms(4, 3, std::vector<double>{0, 1, -1, 1.0 / 3, -1.0 / 3});
  const auto twos = generate_winograd_transforms(4, 3, std::vector<double>{0, 1, -1, 2, -2});
  const double e_ours = trial_error<float>(ours, random, 20000);
  const double e_papers = trial_error<float>(papers, random, 20000);
  const double e_twos = trial_error<float>(twos, random, 20000);
  std::cout << "[ accuracy ] F(4,3) float32 normwise error: {0,+-1,+-1/2} " << e_ours
            << ", {0,+-1,+-2} " << e_twos << ", {0,+-1,+-1/3} " << e_papers << "\n";
  EXPECT_GT(e_papers / e_ours, 1.4);
  EXPECT_GT(e_papers / e_twos, 1.4);
}

// Each variant on 3x3x3 problems, Forward and BackwardData, against the float64 reference:
// the measured error is printed beside the stated tolerance it must stay within.
TEST(WinogradNd, EachVariantWithinItsStatedToleranceIn3d) {
  testing::SeededRandom random;
  ThreadPool pool(2);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (const char* name : {"WINOGRAD_F2_3_ND", "WINOGRAD_F4_3_ND"}) {
    const Solver* solver = find_solver(name);
    ASSERT_NE(solver, nullptr);
    double worst = 0, tolerance = 0;
    for (int trial = 0; trial < 4; ++trial) {
      const std::int64_t pad = random.uniform(0, 2), d = random.uniform(4, 9),
                         c = random.uniform(1, 8), k = random.uniform(1, 8);
      ConvolutionProblem p;
      p.x = TensorShape::packed({2, c, d, d + 1, d + 2});
      p.w = TensorShape::packed({k, c, 3, 3, 3});
      p.y = TensorShape::packed({2, k, d + 2 * pad - 2, d + 2 * pad - 1, d + 2 * pad});
      p.padding = {pad, pad, pad};
      p.stride = {1, 1, 1};
      p.dilation = {1, 1, 1};
      for (auto op : {Operation::kForward, Operation::kBackwardData}) {
        const KernelKey kernel{op, p};
        SCOPED_TRACE(std::string(name) + " " + kernel.to_string());
        ASSERT_TRUE(solver->applies(kernel));
        auto fill = [&](const TensorShape& s) {
          std::vector<float> v(s.span_elements());
          for (auto& e : v) e = uniform(random.engine());
          return v;
        };
        std::vector<float> x = fill(p.x), w = fill(p.w), y = fill(p.y);
        std::vector<double> rx(x.begin(), x.end()), rw(w.begin(), w.end()), ry(y.begin(), y.end());
        KernelKey wide = kernel;
        wide.problem.data_type = wide.problem.compute_type = DataType::kDouble;
        reference_convolution(wide, {rx.data(), rw.data(), ry.data()}, {1, 0});
        std::vector<float> workspace(solver->workspace_bytes(kernel) / sizeof(float) + 1);
        solver->run(kernel, {x.data(), w.data(), y.data()}, {1, 0},
                    {workspace.data(), workspace.size() * sizeof(float)}, pool);
        const auto& got = op == Operation::kForward ? y : x;
        const auto& want = op == Operation::kForward ? ry : rx;
        double difference = 0, norm = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          difference += (got[i] - want[i]) * (got[i] - want[i]);
          norm += want[i] * want[i];
        }
        worst = std::max(worst, std::sqrt(difference / norm));
        tolerance = solver->tolerance(kernel);
        EXPECT_LE(std::sqrt(difference / norm), tolerance);
      }
    }
    std::cout << "[ accuracy ] " << name << " 3-d: worst normwise error " << worst
              << ", stated tolerance " << tolerance << "\n";
  }
}

}  // namespace
}  // namespace ucudnn::cpu
