#include "core/output_comparison.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ucudnn {

double normwise_difference(std::span<const double> a, std::span<const double> b) {
  double difference = 0, norm = 0;
  const std::size_t count = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
      return std::numeric_limits<double>::infinity();
    difference += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  if (difference == 0) return 0;
  if (norm == 0) return std::numeric_limits<double>::infinity();
  return std::sqrt(difference / norm);
}

}  // namespace ucudnn
