#pragma once
// The range of workspace limits one stored plan answers.
#include <cstdint>
#include <limits>

namespace ucudnn {

// The limits one stored plan answers. A WR plan made under limit L with workspace W is the
// optimum for every limit from W up to (not including) the smallest workspace the planner
// left out for being over L: no faster configuration fits anywhere in between. Storing the
// range instead of L keeps one row per step of the kernel's time-vs-workspace curve however
// many limits applications ask with (Find*Ex passes whatever memory is free).
struct LimitRange {
  std::uint64_t from = 0;
  std::uint64_t below = 0;  // UINT64_MAX: no upper end (UINT64_MAX itself included)

  static constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

  static LimitRange exactly(std::uint64_t limit) {
    return {limit, limit == kUnbounded ? kUnbounded : limit + 1};
  }
  bool contains(std::uint64_t limit) const {
    return from <= limit && (limit < below || below == kUnbounded);
  }
  // Some limit lies in both: the higher start does.
  bool overlaps(const LimitRange& other) const {
    const std::uint64_t higher = from > other.from ? from : other.from;
    return contains(higher) && other.contains(higher);
  }
  friend bool operator==(const LimitRange&, const LimitRange&) = default;
};

}  // namespace ucudnn
