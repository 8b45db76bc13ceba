#pragma once
// `ucudnn bench`'s plan check: every kernel's WR plan and its fastest undivided algorithm
// run for real, side by side on the same inputs. It prints, per kernel, the planned and the
// measured times of both and how far their outputs differ against the solvers' stated
// tolerances; then the totals, how well the plan predicted (median |measured/planned - 1|),
// a warning naming the kernels measured more than 25% off their plan, and an error naming
// every kernel whose plan computes a different result.
#include <cstdio>

#include "planning.h"
#include "worker.h"

namespace ucudnn::cli {

struct PlanCheckSummary {
  std::size_t checked = 0;
  std::size_t could_not_run = 0;
  std::size_t disagreeing = 0;  // outputs beyond the tolerance
  double plan_ms = 0, undivided_ms = 0;
  double predicted_vs_measured = 0;  // median over the plans of |measured/planned - 1|
};

inline constexpr double kPredictionWarningFraction = 0.25;

PlanCheckSummary check_plans(std::FILE* out, Worker& worker,
                             const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan,
                             int repeats);

}  // namespace ucudnn::cli
