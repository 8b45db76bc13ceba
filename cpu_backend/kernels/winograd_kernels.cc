// One entry per instruction set for each Winograd micro-kernel, and the run-time choice
// among them: the build targets the x86-64 baseline, so the wider instruction sets are
// reached only through functions compiled with target attributes and called through the
// pointers of a KernelVariant once the CPU has been asked what it supports.
#include "kernels/winograd_kernels.h"

#include "kernels/winograd_tile_kernels.h"

namespace ucudnn::cpu::winograd {

namespace {

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
std::vector<KernelVariant> variants_of() {
  std::vector<KernelVariant> variants;
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("avx512f"))
    variants.push_back({"avx512", input_avx512<kM>, output_avx512<kM>, filter_avx512<kM>});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    variants.push_back({"avx2", input_avx2<kM>, output_avx2<kM>, filter_avx2<kM>});
#endif
  variants.push_back({"baseline", input_baseline<kM>, output_baseline<kM>, filter_baseline<kM>});
  return variants;
}

}  // namespace

std::vector<KernelVariant> supported_kernel_variants(int m) {
  return m == 2 ? variants_of<2>() : variants_of<4>();
}

const KernelVariant& selected_kernel_variant(int m) {
  static const KernelVariant f2 = supported_kernel_variants(2).front(),
                             f4 = supported_kernel_variants(4).front();
  return m == 2 ? f2 : f4;
}

}  // namespace ucudnn::cpu::winograd
