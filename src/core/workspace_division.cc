#include "core/workspace_division.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "core/choice_knapsack.h"
#include "core/saturating.h"

namespace ucudnn {

Expected<DivisionPlan> plan_workspace_division(const std::vector<KernelCandidates>& kernels,
                                               std::uint64_t total_limit, std::uint64_t alignment) {
  if (alignment == 0) alignment = 1;
  // Work in aligned units: the coefficients are integers, so the solver's tolerances
  // cannot let the aligned total exceed the limit.
  // One unit below the maximum, so that a saturated sum (UINT64_MAX) always exceeds it.
  const std::uint64_t capacity = std::min<std::uint64_t>(total_limit / alignment, UINT64_MAX - 1);

  // Kernels with the same (time, workspace) front are interchangeable (identical layers).
  // Configurations larger than the whole limit are dropped here; `choices` maps a group's
  // choice back to the index in the kernel's front.
  std::map<std::vector<std::pair<double, std::uint64_t>>, std::size_t> group_of_front;
  std::vector<ChoiceGroup> groups;
  std::vector<std::vector<std::size_t>> choices;
  std::vector<std::size_t> group_of(kernels.size());
  std::uint64_t smallest = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto& front = kernels[k].front;
    if (front.empty()) return Error{"kernel '" + kernels[k].name + "' has no configuration"};
    std::vector<std::pair<double, std::uint64_t>> points;
    std::uint64_t lightest = UINT64_MAX;
    for (const auto& c : front) {
      points.emplace_back(c.time_ms(), units_of(c.workspace_bytes(), alignment));
      lightest = std::min(lightest, points.back().second);
    }
    smallest = saturating_add(smallest, lightest);
    auto [it, inserted] = group_of_front.emplace(points, groups.size());
    if (inserted) {
      ChoiceGroup group{0, {}, {}};
      std::vector<std::size_t> indices;
      for (std::size_t i = 0; i < points.size(); ++i) {
        if (points[i].second > capacity) continue;
        group.time.push_back(points[i].first);
        group.weight.push_back(points[i].second);
        indices.push_back(i);
      }
      groups.push_back(std::move(group));
      choices.push_back(std::move(indices));
    }
    ++groups[it->second].multiplicity;
    group_of[k] = it->second;
  }
  if (smallest > capacity)
    return Error{"total workspace limit " + std::to_string(total_limit) +
                 " bytes is infeasible: the smallest feasible total is " +
                 (smallest == UINT64_MAX
                      ? std::string("more than 2^64")
                      : std::to_string(saturating_multiply(smallest, alignment))) +
                 " bytes"};

  DivisionPlan plan;
  std::vector<std::vector<std::int64_t>> counts(groups.size());
  // Fastest everywhere fits: nothing to trade off, no program to solve.
  std::uint64_t fastest_total = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& time = groups[g].time;
    const auto f =
        static_cast<std::size_t>(std::min_element(time.begin(), time.end()) - time.begin());
    counts[g].assign(time.size(), 0);
    counts[g][f] = groups[g].multiplicity;
    fastest_total = saturating_add(
        fastest_total, saturating_multiply(static_cast<std::uint64_t>(groups[g].multiplicity),
                                           groups[g].weight[f]));
  }
  if (fastest_total > capacity) {
    auto solved = solve_choice_knapsack(groups, capacity);
    if (!solved) return Error{solved.error()};
    counts = std::move(solved->counts);
    plan.variables = solved->variables;
    plan.unfixed_variables = solved->unfixed_variables;
  }

  // Hand each group's chosen configurations to its kernels in order; lay segments out.
  std::vector<Configuration> chosen;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    auto& row = counts[group_of[k]];
    const auto choice = static_cast<std::size_t>(
        std::find_if(row.begin(), row.end(), [](std::int64_t n) { return n > 0; }) - row.begin());
    if (choice == row.size())
      return Error{"the WD integer program chose nothing for kernel '" + kernels[k].name + "'"};
    --row[choice];
    const auto index = choices[group_of[k]][choice];
    plan.choice.push_back(index);
    chosen.push_back(kernels[k].front[index]);
    plan.time_ms += chosen.back().time_ms();
  }
  plan.offsets = segment_offsets(chosen, alignment);
  const std::uint64_t offset = plan.offsets.back();
  plan.offsets.pop_back();
  plan.workspace_bytes = offset;
  if (offset > capacity * alignment)
    return Error{"the WD integer program exceeded the limit (" + std::to_string(offset) + " > " +
                 std::to_string(total_limit) + " bytes)"};
  return plan;
}

std::vector<std::uint64_t> segment_offsets(const std::vector<Configuration>& chosen,
                                           std::uint64_t alignment) {
  if (alignment == 0) alignment = 1;
  std::vector<std::uint64_t> offsets;
  std::uint64_t offset = 0;
  for (const auto& c : chosen) {
    offsets.push_back(offset);
    offset = saturating_add(
        offset, saturating_multiply(units_of(c.workspace_bytes(), alignment), alignment));
  }
  offsets.push_back(offset);
  return offsets;
}

}  // namespace ucudnn
