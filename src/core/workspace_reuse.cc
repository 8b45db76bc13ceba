#include "core/workspace_reuse.h"

#include <limits>
#include <string>

namespace ucudnn {

Expected<Configuration> plan_workspace_reuse(const MicroTable& table) {
  const auto batch = table.batch;
  if (batch <= 0) return Error{"batch size " + std::to_string(batch) + " must be positive"};
  constexpr double kUnreachable = std::numeric_limits<double>::infinity();

  std::vector<const MicroConfiguration*> best(table.sizes.size());
  for (std::size_t i = 0; i < table.sizes.size(); ++i) best[i] = fastest(table.candidates[i]);

  // time[b]: T(b); choice[b]: index into sizes of the first micro-batch of c(b).
  std::vector<double> time(batch + 1, kUnreachable);
  std::vector<int> choice(batch + 1, -1);
  time[0] = 0;
  for (std::int64_t b = 1; b <= batch; ++b) {
    for (std::size_t i = table.sizes.size(); i-- > 0;) {  // larger sizes first win ties
      const auto s = table.sizes[i];
      if (s > b || !best[i] || time[b - s] == kUnreachable) continue;
      const double candidate = best[i]->time_ms + time[b - s];
      if (candidate < time[b]) {
        time[b] = candidate;
        choice[b] = static_cast<int>(i);
      }
    }
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
