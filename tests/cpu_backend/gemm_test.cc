#include "gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "support/random_seed.h"
#include "thread_pool.h"

namespace ucudnn::cpu {
namespace {

TEST(Gemm, ChoosesTheAvx512KernelAndRestoresTheEnvironment) {
  const char* before = std::getenv("OPENBLAS_CORETYPE");
  const std::string saved = before ? before : "<unset>";
  const std::string kernel = blas_kernel_name();
  const char* after = std::getenv("OPENBLAS_CORETYPE");
  EXPECT_EQ(after ? std::string(after) : "<unset>", saved);
  if (std::getenv("UCUDNN_BLAS_CORETYPE"))
    GTEST_SKIP() << "UCUDNN_BLAS_CORETYPE chooses the kernel";
  if (!__builtin_cpu_supports("avx512f")) GTEST_SKIP() << "no AVX-512 on this CPU";
  EXPECT_EQ(kernel, "SkylakeX");
}

TEST(Gemm, SerialAndParallelMatchNaive) {
  testing::SeededRandom random;
  ThreadPool pool(2);
  for (int trial = 0; trial < 40; ++trial) {
    const auto m = static_cast<std::size_t>(random.uniform(1, 150));
    const auto n = static_cast<std::size_t>(random.uniform(1, 300));
    const auto k = static_cast<std::size_t>(random.uniform(1, 120));
    const auto ta = random.chance(0.5) ? Transpose::kYes : Transpose::kNo;
    const auto tb = random.chance(0.5) ? Transpose::kYes : Transpose::kNo;
    const float alpha = 0.5f, beta = trial % 2 ? 0.25f : 0.0f;
    std::vector<float> a(m * k), b(k * n), c(m * n);
    for (auto& v : a) v = static_cast<float>(random.uniform(-100, 100)) / 100;
    for (auto& v : b) v = static_cast<float>(random.uniform(-100, 100)) / 100;
    for (auto& v : c) v = beta == 0 ? std::numeric_limits<float>::quiet_NaN() : 1.0f;
    const std::size_t lda = ta == Transpose::kNo ? k : m, ldb = tb == Transpose::kNo ? n : k;
    auto at = [&](std::size_t i, std::size_t p) {
      return ta == Transpose::kNo ? a[i * lda + p] : a[p * lda + i];
    };
    auto bt = [&](std::size_t p, std::size_t j) {
      return tb == Transpose::kNo ? b[p * ldb + j] : b[j * ldb + p];
    };
    std::vector<float> serial = c, parallel = c;
    sgemm(ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, serial.data(), n);
    parallel_sgemm(pool, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta,
                   parallel.data(), n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        double sum = 0;
        for (std::size_t p = 0; p < k; ++p) sum += static_cast<double>(at(i, p)) * bt(p, j);
        const double expected = alpha * sum + (beta == 0 ? 0.0 : beta * 1.0);
        ASSERT_NEAR(serial[i * n + j], expected, 1e-4)
            << "serial m=" << m << " n=" << n << " k=" << k;
        ASSERT_NEAR(parallel[i * n + j], expected, 1e-4)
            << "parallel m=" << m << " n=" << n << " k=" << k;
      }
  }
}

}  // namespace
}  // namespace ucudnn::cpu
