#include "core/workspace_reuse.h"

#include <algorithm>
#include <limits>
#include <string>

namespace ucudnn {

ReuseSolutions::ReuseSolutions(const MicroTable& table) : sizes_(table.sizes) {
  const auto batch = std::max<std::int64_t>(table.batch, 0);
  constexpr double kUnreachable = std::numeric_limits<double>::infinity();

  // The fastest micro-configuration of each size, and its time (unreachable: none fits).
  const std::size_t size_count = table.sizes.size();
  best_.assign(size_count, nullptr);
  std::vector<double> best_time(size_count, kUnreachable);
  for (std::size_t i = 0; i < size_count; ++i)
    if ((best_[i] = fastest(table.candidates[i]))) best_time[i] = best_[i]->time_ms;

  // time[b]: T(b); choice[b]: index into sizes of the first micro-batch of c(b). Unreachable
  // stays unreachable through the sums, so the loop needs no test but the size's.
  time_.assign(static_cast<std::size_t>(batch) + 1, kUnreachable);
  choice_.assign(static_cast<std::size_t>(batch) + 1, -1);
  double* time = time_.data();
  const std::int64_t* sizes = table.sizes.data();
  time[0] = 0;
  // Sizes increasing (as measured): those that fit b are a prefix, `fitting` long.
  const bool increasing = std::is_sorted(table.sizes.begin(), table.sizes.end());
  std::size_t fitting = increasing ? 0 : size_count;
  for (std::int64_t b = 1; b <= batch; ++b) {
    while (increasing && fitting < size_count && table.sizes[fitting] <= b) ++fitting;
    // The minimum first, in four independent running minima (no index to carry, no branch),
    // then the largest size that reaches it (larger sizes first win ties): the same sums
    // in the same order, so equal means the very candidate.
    const auto candidate = [&](std::size_t i) {
      const auto s = sizes[i];
      return s > b ? kUnreachable : best_time[i] + time[b - s];  // only unsorted sizes skip
    };
    double lane[4] = {kUnreachable, kUnreachable, kUnreachable, kUnreachable};
    std::size_t i = 0;
    for (; i + 4 <= fitting; i += 4)
      for (std::size_t l = 0; l < 4; ++l) lane[l] = std::min(lane[l], candidate(i + l));
    for (; i < fitting; ++i) lane[0] = std::min(lane[0], candidate(i));
    const double best_b = std::min(std::min(lane[0], lane[1]), std::min(lane[2], lane[3]));
    int choice_b = -1;
    if (best_b != kUnreachable)
      for (std::size_t j = fitting; j-- > 0;)
        if (candidate(j) == best_b) {
          choice_b = static_cast<int>(j);
          break;
        }
    time[b] = best_b;
    choice_[static_cast<std::size_t>(b)] = choice_b;
  }
}

bool ReuseSolutions::covers(std::int64_t b) const {
  return b >= 0 && b <= batch() && time_ms(b) != std::numeric_limits<double>::infinity();
}

Configuration ReuseSolutions::configuration(std::int64_t b) const {
  Configuration result;
  while (b > 0) {
    const auto choice = static_cast<std::size_t>(choice_[static_cast<std::size_t>(b)]);
    result.micro.push_back(*best_[choice]);
    b -= sizes_[choice];
  }
  return result;
}

Expected<Configuration> plan_workspace_reuse(const MicroTable& table) {
  if (table.batch <= 0)
    return Error{"batch size " + std::to_string(table.batch) + " must be positive"};
  const ReuseSolutions solutions(table);
  if (!solutions.covers(table.batch))
    return Error{"no configuration covers batch " + std::to_string(table.batch) +
                 " within the workspace limit: no algorithm fits at the allowed micro-batch sizes"};
  return solutions.configuration(table.batch);
}

LimitRange limits_answered(const MicroTable& table, const Configuration& plan,
                           std::optional<std::uint64_t> candidates_chosen_at) {
  return {std::max(plan.workspace_bytes(), candidates_chosen_at.value_or(0)),
          table.smallest_over_limit};
}

}  // namespace ucudnn
