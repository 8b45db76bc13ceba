#include "gemm.h"

#include <cblas.h>
#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// OpenBLAS is opened at first use rather than linked, so that its kernel can still be
// chosen: OpenBLAS 0.3.21 takes AVX-512 CPUs it does not know for Haswell and runs the
// AVX2 kernel (121 GFLOP/s on 2 cores of the development machines, 184 with SkylakeX),
// and some machine images even pin OPENBLAS_CORETYPE=Haswell. UCUDNN_BLAS_CORETYPE picks
// the kernel for ucudnn's own load: unset, SkylakeX on AVX-512 CPUs (else OpenBLAS's
// choice); "inherit", OPENBLAS_CORETYPE as set; any other value, that kernel. The
// variable is restored after loading, so other libraries see what the user set. When the
// process already has OpenBLAS loaded, that library's choice stands.
std::string chosen_core_type() {
  const char* ours = std::getenv("UCUDNN_BLAS_CORETYPE");
  if (ours && std::string_view(ours) == "inherit") return {};
  if (ours && *ours) return ours;
  return __builtin_cpu_supports("avx512f") ? "SkylakeX" : "";
}

struct OpenBlas {
  using Sgemm = void (*)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint,
                         float, const float*, blasint, const float*, blasint, float, float*,
                         blasint);
  Sgemm sgemm = nullptr;
  void (*set_threads)(int) = nullptr;
  const char* kernel = "unknown";

  OpenBlas() {
    const std::string core = chosen_core_type();
    const char* previous = std::getenv("OPENBLAS_CORETYPE");
    const std::optional<std::string> saved =
        previous ? std::optional<std::string>(previous) : std::nullopt;
    if (!core.empty()) setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
    void* library = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!core.empty()) {
      if (saved)
        setenv("OPENBLAS_CORETYPE", saved->c_str(), 1);
      else
        unsetenv("OPENBLAS_CORETYPE");
    }
    if (!library)
      throw std::runtime_error(std::string("cannot load libopenblas.so.0: ") + dlerror());
    sgemm = reinterpret_cast<Sgemm>(dlsym(library, "cblas_sgemm"));
    set_threads = reinterpret_cast<void (*)(int)>(dlsym(library, "openblas_set_num_threads"));
    auto core_name = reinterpret_cast<char* (*)()>(dlsym(library, "openblas_get_corename"));
    if (!sgemm) throw std::runtime_error("libopenblas.so.0 has no cblas_sgemm");
    // Parallelism is ours (ThreadPool): OpenBLAS's own pool would compete with it.
    if (set_threads) set_threads(1);
    if (core_name) kernel = core_name();
  }
};

const OpenBlas& openblas() {
  static const OpenBlas instance;
  return instance;
}

CBLAS_TRANSPOSE to_cblas(Transpose t) {
  return t == Transpose::kYes ? CblasTrans : CblasNoTrans;
}

}  // namespace

void sgemm(Transpose transpose_a, Transpose transpose_b, std::size_t m, std::size_t n,
           std::size_t k, float alpha, const float* a, std::size_t lda, const float* b,
           std::size_t ldb, float beta, float* c, std::size_t ldc) {
  if (m == 0 || n == 0) return;
  openblas().sgemm(CblasRowMajor, to_cblas(transpose_a), to_cblas(transpose_b),
                   static_cast<blasint>(m), static_cast<blasint>(n), static_cast<blasint>(k), alpha,
                   a, static_cast<blasint>(lda), b, static_cast<blasint>(ldb), beta, c,
                   static_cast<blasint>(ldc));
}

void parallel_sgemm(ThreadPool& pool, Transpose transpose_a, Transpose transpose_b, std::size_t m,
                    std::size_t n, std::size_t k, float alpha, const float* a, std::size_t lda,
                    const float* b, std::size_t ldb, float beta, float* c, std::size_t ldc) {
  // Panels of C's columns (or rows, when C is tall and narrow), aligned to 16 floats so
  // that each thread's panel starts on a cache line.
  constexpr std::size_t kAlign = 16;
  const unsigned threads = pool.size();
  if (threads == 1 || m * n * k < 64 * 64 * 64) {
    sgemm(transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  if (n >= m || n >= threads * kAlign) {
    const std::size_t blocks = (n + kAlign - 1) / kAlign;
    pool.parallel_for(blocks, [&](std::size_t begin, std::size_t end, unsigned) {
      const std::size_t col = begin * kAlign, cols = std::min(n, end * kAlign) - col;
      const float* b_panel = transpose_b == Transpose::kNo ? b + col : b + col * ldb;
      sgemm(transpose_a, transpose_b, m, cols, k, alpha, a, lda, b_panel, ldb, beta, c + col, ldc);
    });
  } else {
    pool.parallel_for(m, [&](std::size_t begin, std::size_t end, unsigned) {
      const float* a_panel = transpose_a == Transpose::kNo ? a + begin * lda : a + begin;
      sgemm(transpose_a, transpose_b, end - begin, n, k, alpha, a_panel, lda, b, ldb, beta,
            c + begin * ldc, ldc);
    });
  }
}

void blas_threaded_sgemm(unsigned threads, Transpose transpose_a, Transpose transpose_b,
                         std::size_t m, std::size_t n, std::size_t k, float alpha, const float* a,
                         std::size_t lda, const float* b, std::size_t ldb, float beta, float* c,
                         std::size_t ldc) {
  const auto& blas = openblas();
  if (blas.set_threads) blas.set_threads(static_cast<int>(threads));
  sgemm(transpose_a, transpose_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (blas.set_threads) blas.set_threads(1);
}

const char* blas_kernel_name() {
  return openblas().kernel;
}

}  // namespace ucudnn::cpu
