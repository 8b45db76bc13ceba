#include "core/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace ucudnn {

namespace {
constexpr std::uint64_t kExact = LatencyHistogram::kSubBuckets;  // 0..15 ns: one bucket each
}  // namespace

int LatencyHistogram::bucket_of(std::uint64_t nanoseconds) {
  if (nanoseconds < kExact) return static_cast<int>(nanoseconds);
  const int power = std::min(63 - std::countl_zero(nanoseconds), kTopPower - 1);  // >= 4
  if (power == kTopPower - 1 && (nanoseconds >> power) > 1) return kBuckets - 1;
  const auto sub = static_cast<int>((nanoseconds >> (power - 4)) & (kSubBuckets - 1));
  return (power - 3) * kSubBuckets + sub;
}

std::uint64_t LatencyHistogram::bucket_start(int bucket) {
  if (bucket < kSubBuckets) return static_cast<std::uint64_t>(bucket);
  const int power = bucket / kSubBuckets + 3;
  const auto sub = static_cast<std::uint64_t>(bucket % kSubBuckets);
  return (kExact + sub) << (power - 4);
}

std::uint64_t LatencyHistogram::bucket_width(int bucket) {
  if (bucket < kSubBuckets) return 1;
  return std::uint64_t{1} << (bucket / kSubBuckets - 1);
}

void LatencyHistogram::record(std::uint64_t nanoseconds) {
  auto& slot = counts_[static_cast<std::size_t>(bucket_of(nanoseconds))];
  // One writer: a load and a store, no read-modify-write on the hot path.
  slot.store(slot.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void LatencyHistogram::add(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i)
    counts_[i].store(counts_[i].load(std::memory_order_relaxed) +
                         other.counts_[i].load(std::memory_order_relaxed),
                     std::memory_order_relaxed);
}

std::uint64_t LatencyHistogram::count() const {
  std::uint64_t total = 0;
  for (const auto& c : counts_) total += c.load(std::memory_order_relaxed);
  return total;
}

double LatencyHistogram::quantile(double q) const {
  std::array<std::uint64_t, kBuckets> snapshot;
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    total += snapshot[i] = counts_[i].load(std::memory_order_relaxed);
  if (total == 0) return 0;
  // The rank of the quantile among the records, 1-based: ceil(q * total), at least 1.
  const auto rank = std::max<std::uint64_t>(
      1,
      static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(total))));
  std::uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += snapshot[static_cast<std::size_t>(b)];
    if (seen >= rank)
      return b < kSubBuckets
                 ? static_cast<double>(b)
                 : static_cast<double>(bucket_start(b)) + static_cast<double>(bucket_width(b)) / 2;
  }
  return static_cast<double>(bucket_start(kBuckets - 1));
}

}  // namespace ucudnn
