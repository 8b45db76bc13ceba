#pragma once
// Unsigned arithmetic that sticks at the maximum instead of wrapping: workspace sizes come
// from measurements and caches, and a sum of huge ones must compare as huge, not small.
#include <cstdint>
#include <limits>

namespace ucudnn {

inline std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > std::numeric_limits<std::uint64_t>::max() - b
             ? std::numeric_limits<std::uint64_t>::max()
             : a + b;
}

inline std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
    return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

// ceil(bytes / unit) without overflow.
inline std::uint64_t units_of(std::uint64_t bytes, std::uint64_t unit) {
  return bytes / unit + (bytes % unit != 0);
}

}  // namespace ucudnn
