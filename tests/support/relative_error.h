#pragma once
// The normwise relative error of `actual` against `expected`: ||actual - expected|| /
// ||expected||, in double. How the tests compare results that different algorithms or
// micro-batch splits round differently.
#include <algorithm>
#include <cmath>
#include <vector>

namespace ucudnn::testing {

inline double relative_error(const std::vector<float>& actual, const std::vector<float>& expected) {
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < actual.size() && i < expected.size(); ++i) {
    difference += (double(actual[i]) - expected[i]) * (double(actual[i]) - expected[i]);
    norm += double(expected[i]) * expected[i];
  }
  return std::sqrt(difference / std::max(norm, 1e-300));
}

}  // namespace ucudnn::testing
