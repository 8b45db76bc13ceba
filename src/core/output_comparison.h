#pragma once
// Two runs of one kernel on the same inputs, compared: the normwise relative difference of
// their outputs, ||a - b|| / ||b||, against the sum of what each run's algorithms state as
// their error bound (each against the exact result, so together they may differ by both).
#include <cstddef>
#include <optional>
#include <span>

namespace ucudnn {

struct OutputComparison {
  double difference = 0;  // infinity when either output holds NaN or infinity
  double tolerance = 0;
  bool agrees() const { return difference <= tolerance; }
};

// A plan and its baseline run for real on the same inputs: their times (medians of
// interleaved runs) and their outputs compared (nullopt when the data type is not compared).
struct SideBySideRuns {
  double plan_ms = 0;
  double baseline_ms = 0;
  std::optional<OutputComparison> outputs;
};

// ||a - b||_2 / ||b||_2 over the elements; 0 when both are zero.
double normwise_difference(std::span<const double> a, std::span<const double> b);

}  // namespace ucudnn
