#pragma once
// Row-major single-precision GEMM through OpenBLAS: C = alpha * op(A) * op(B) + beta * C,
// C is m x n. With beta == 0, C is not read. `sgemm` runs on the calling thread only;
// `parallel_sgemm` splits the columns of C (or the rows, when n is small) across the pool.
#include <cstddef>

namespace ucudnn::cpu {

class ThreadPool;

enum class Transpose { kNo, kYes };

void sgemm(Transpose transpose_a, Transpose transpose_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, std::size_t ldc);

void parallel_sgemm(ThreadPool& pool, Transpose transpose_a, Transpose transpose_b, std::size_t m,
                    std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                    const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc);

// For benchmarks only: one sgemm call with OpenBLAS's own threading on `threads` threads,
// the yardstick for our parallelization. Not thread-safe (it changes OpenBLAS's global
// thread count for the duration of the call).
void blas_threaded_sgemm(unsigned threads, Transpose transpose_a, Transpose transpose_b,
                         std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                         std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
                         std::size_t ldc);

// The OpenBLAS kernel in use (e.g. "SkylakeX"), for device fingerprints and reports.
const char* blas_kernel_name();

}  // namespace ucudnn::cpu
