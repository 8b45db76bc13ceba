#include "core/early_stop.h"

#include <algorithm>
#include <limits>

namespace ucudnn {

std::optional<double> EarlyStop::bound(const std::pair<std::string, std::int64_t>& shape,
                                       std::uint64_t bytes) const {
  if (rule_.slow_factor <= 0) return std::nullopt;
  const auto found = measured_.find(shape);
  if (found == measured_.end()) return std::nullopt;
  double fastest = std::numeric_limits<double>::infinity();
  for (const auto& [their_bytes, their_ms] : found->second)
    if (their_bytes <= bytes) fastest = std::min(fastest, their_ms);
  if (fastest == std::numeric_limits<double>::infinity()) return std::nullopt;
  return fastest;
}

bool EarlyStop::hopeless(double ms, double bound) const {
  return ms > std::max(rule_.hopeless_factor * bound, bound + rule_.hopeless_margin_ms);
}

bool EarlyStop::slow(double ms, double bound) const {
  return ms > rule_.slow_factor * bound;
}

void EarlyStop::measured(const std::pair<std::string, std::int64_t>& shape, std::uint64_t bytes,
                         double ms) {
  measured_[shape].emplace_back(bytes, ms);
}

}  // namespace ucudnn
