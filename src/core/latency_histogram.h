#pragma once
// Durations as a log-linear histogram: exact below 16 ns, then 16 buckets per power of two, so
// a quantile read back is within 1/32 (about 3%) of a value recorded, whatever the spread. The
// shim's host-time account keeps one per entry point and thread: a fixed size (no allocation
// once made, nothing that grows with the length of the run), one writer, readers on any
// thread at any time (relaxed atomics: a reader may miss the last few records, never tear one).
#include <array>
#include <atomic>
#include <cstdint>

namespace ucudnn {

class LatencyHistogram {
 public:
  static constexpr int kSubBuckets = 16;
  // Durations from 2^kTopPower ns (about 18 minutes) on land in the last bucket.
  static constexpr int kTopPower = 40;
  static constexpr int kBuckets = (kTopPower - 3) * kSubBuckets;

  // The one writer's call.
  void record(std::uint64_t nanoseconds);
  // Adds `other`'s counts (a snapshot of a histogram another thread may still write).
  void add(const LatencyHistogram& other);

  std::uint64_t count() const;
  // The duration at quantile q in [0, 1] (0.5: the median), in nanoseconds: the middle of the
  // bucket holding it; 0 when nothing was recorded.
  double quantile(double q) const;

  static int bucket_of(std::uint64_t nanoseconds);
  // The bucket's smallest duration and its width, in nanoseconds.
  static std::uint64_t bucket_start(int bucket);
  static std::uint64_t bucket_width(int bucket);

 private:
  std::array<std::atomic<std::uint64_t>, kBuckets> counts_{};
};

}  // namespace ucudnn
