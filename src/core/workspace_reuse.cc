#include "core/workspace_reuse.h"

#include <algorithm>
#include <limits>
#include <string>

namespace ucudnn {

Expected<Configuration> plan_workspace_reuse(const MicroTable& table) {
  const auto batch = table.batch;
  if (batch <= 0) return Error{"batch size " + std::to_string(batch) + " must be positive"};
  constexpr double kUnreachable = std::numeric_limits<double>::infinity();

  // The fastest micro-configuration of each size, and its time (unreachable: none fits).
  const std::size_t size_count = table.sizes.size();
  std::vector<const MicroConfiguration*> best(size_count);
  std::vector<double> best_time(size_count, kUnreachable);
  for (std::size_t i = 0; i < size_count; ++i)
    if ((best[i] = fastest(table.candidates[i]))) best_time[i] = best[i]->time_ms;

  // time[b]: T(b); choice[b]: index into sizes of the first micro-batch of c(b). Unreachable
  // stays unreachable through the sums, so the loop needs no test but the size's.
  std::vector<double> time(batch + 1, kUnreachable);
  std::vector<int> choice(batch + 1, -1);
  time[0] = 0;
  // Sizes increasing (as measured): those that fit b are a prefix, `fitting` long.
  const bool increasing = std::is_sorted(table.sizes.begin(), table.sizes.end());
  std::size_t fitting = increasing ? 0 : size_count;
  for (std::int64_t b = 1; b <= batch; ++b) {
    while (increasing && fitting < size_count && table.sizes[fitting] <= b) ++fitting;
    double best_b = kUnreachable;
    int choice_b = -1;
    for (std::size_t i = fitting; i-- > 0;) {  // larger sizes first win ties
      const auto s = table.sizes[i];
      if (s > b) continue;  // only where sizes are not increasing
      const double candidate = best_time[i] + time[b - s];
      const bool better = candidate < best_b;
      best_b = better ? candidate : best_b;
      choice_b = better ? static_cast<int>(i) : choice_b;
    }
    time[b] = best_b;
    choice[b] = choice_b;
  }
  if (time[batch] == kUnreachable)
    return Error{"no configuration covers batch " + std::to_string(batch) +
                 " within the workspace limit: no algorithm fits at the allowed micro-batch sizes"};

  Configuration result;
  for (std::int64_t b = batch; b > 0; b -= table.sizes[choice[b]])
    result.micro.push_back(*best[choice[b]]);
  return result;
}

LimitRange limits_answered(const MicroTable& table, const Configuration& plan) {
  return {plan.workspace_bytes(), table.smallest_over_limit};
}

}  // namespace ucudnn
