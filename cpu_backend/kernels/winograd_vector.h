#pragma once
// The Winograd micro-kernels are written once, with GCC vector extensions, and compiled
// for several instruction sets (the build has no -march): this header is the vocabulary
// they share, lane vectors and their loads and stores, kept apart so that every kernel and
// every instruction set spells memory access the same way. A 16-float vector is one
// AVX-512 register, two AVX or four SSE ones; only the transposes (and the non-temporal
// stores) need the native width kW spelled out.
#include <cstddef>
#include <cstring>

namespace ucudnn::cpu::winograd {

constexpr int kLanes = 16;  // channels per block, one per lane
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

// How a transform writes its results: the kernels take it as a template parameter so that
// the choice between plain and non-temporal stores costs nothing per vector.
struct PlainStore {
  static UCUDNN_INLINE void put(float* p, const Vec& v) { store(p, v); }
};
template <int kW>
struct StreamStore {
  static UCUDNN_INLINE void put(float* p, const Vec& v) { stream<kW>(p, v); }
};

}  // namespace ucudnn::cpu::winograd
