#include "core/workspace_division.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "core/choice_knapsack.h"
#include "core/saturating.h"

namespace ucudnn {
namespace {

// The bytes a segment of `bytes` takes when the next one must start on the alignment.
std::uint64_t aligned_size(std::uint64_t bytes, std::uint64_t alignment) {
  return saturating_multiply(units_of(bytes, alignment), alignment);
}

std::uint64_t padding_of(std::uint64_t bytes, std::uint64_t alignment) {
  return aligned_size(bytes, alignment) - bytes;
}

// The arena `choice` needs, laid out as segment_offsets lays it out.
std::uint64_t arena_of(const std::vector<KernelCandidates>& kernels,
                       const std::vector<std::size_t>& choice, std::uint64_t alignment) {
  std::vector<Configuration> chosen;
  for (std::size_t k = 0; k < kernels.size(); ++k) chosen.push_back(kernels[k].front[choice[k]]);
  return segment_offsets(chosen, alignment).back();
}

// Per kernel, the configuration that `better` prefers.
template <typename Better>
std::vector<std::size_t> each_kernels(const std::vector<KernelCandidates>& kernels, Better better) {
  std::vector<std::size_t> choice;
  for (const auto& k : kernels) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < k.front.size(); ++i)
      if (better(k.front[i], k.front[best])) best = i;
    choice.push_back(best);
  }
  return choice;
}

// The optimum where every segment, the last one too, takes whole units of `alignment`: the
// coefficients are integers, so the solver's tolerances cannot let the total exceed the limit.
// An empty choice where even the lightest configurations do not fit so.
struct WholeUnits {
  std::vector<std::size_t> choice;
  std::size_t variables = 0;
  std::size_t unfixed_variables = 0;
};
Expected<WholeUnits> solve_in_whole_units(const std::vector<KernelCandidates>& kernels,
                                          std::uint64_t total_limit, std::uint64_t alignment) {
  const std::uint64_t capacity = total_limit / alignment;  // below UINT64_MAX, as the limit is
  // Kernels with the same (time, workspace) front are interchangeable (identical layers).
  // Configurations larger than the whole limit are dropped here; `choices` maps a group's
  // choice back to the index in the kernel's front.
  std::map<std::vector<std::pair<double, std::uint64_t>>, std::size_t> group_of_front;
  std::vector<ChoiceGroup> groups;
  std::vector<std::vector<std::size_t>> choices;
  std::vector<std::size_t> group_of(kernels.size());
  std::uint64_t smallest = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    std::vector<std::pair<double, std::uint64_t>> points;
    std::uint64_t lightest = UINT64_MAX;
    for (const auto& c : kernels[k].front) {
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
  WholeUnits whole;
  if (smallest > capacity) return whole;
  auto solved = solve_choice_knapsack(groups, capacity);
  if (!solved) return Error{solved.error()};
  whole.variables = solved->variables;
  whole.unfixed_variables = solved->unfixed_variables;
  // Hand each group's chosen configurations to its kernels in order.
  auto counts = solved->counts;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    auto& row = counts[group_of[k]];
    const auto choice = static_cast<std::size_t>(
        std::find_if(row.begin(), row.end(), [](std::int64_t n) { return n > 0; }) - row.begin());
    if (choice == row.size())
      return Error{"the WD integer program chose nothing for kernel '" + kernels[k].name + "'"};
    --row[choice];
    whole.choice.push_back(choices[group_of[k]][choice]);
  }
  return whole;
}

// The program works in whole units and so leaves the limit's remainder below one unit unused;
// the last segment needs no padding, so one kernel, moved to the end, may take a faster
// configuration that reaches into it. Takes the kernel that gains the most.
void use_the_last_unit(const std::vector<KernelCandidates>& kernels, std::uint64_t total_limit,
                       std::uint64_t alignment, std::vector<std::size_t>& choice) {
  std::uint64_t aligned = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k)
    aligned = saturating_add(
        aligned, aligned_size(kernels[k].front[choice[k]].workspace_bytes(), alignment));
  double best_gain = 0;
  std::size_t best_kernel = kernels.size(), best_choice = 0;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const auto& front = kernels[k].front;
    const std::uint64_t others =
        aligned - aligned_size(front[choice[k]].workspace_bytes(), alignment);
    if (aligned == UINT64_MAX || others > total_limit) continue;
    for (std::size_t i = 0; i < front.size(); ++i) {
      const double gain = front[choice[k]].time_ms() - front[i].time_ms();
      if (front[i].workspace_bytes() <= total_limit - others && gain > best_gain) {
        best_gain = gain;
        best_kernel = k;
        best_choice = i;
      }
    }
  }
  if (best_kernel < kernels.size()) choice[best_kernel] = best_choice;
}

}  // namespace

Expected<DivisionPlan> plan_workspace_division(const std::vector<KernelCandidates>& kernels,
                                               std::uint64_t total_limit, std::uint64_t alignment) {
  if (alignment == 0) alignment = 1;
  // One byte below the maximum, so that a saturated sum (UINT64_MAX) always exceeds it.
  total_limit = std::min<std::uint64_t>(total_limit, UINT64_MAX - 1);
  for (const auto& k : kernels)
    if (k.front.empty()) return Error{"kernel '" + k.name + "' has no configuration"};
  const auto lightest = each_kernels(kernels, [](const Configuration& a, const Configuration& b) {
    return a.workspace_bytes() < b.workspace_bytes();
  });
  const std::uint64_t smallest = arena_of(kernels, lightest, alignment);
  if (smallest > total_limit)
    return Error{
        "total workspace limit " + std::to_string(total_limit) +
        " bytes is infeasible: the smallest feasible total is " +
        (smallest == UINT64_MAX ? std::string("more than 2^64") : std::to_string(smallest)) +
        " bytes"};

  DivisionPlan plan;
  // Fastest everywhere (of what fits alone) fits: nothing to trade off, no program to solve.
  plan.choice = each_kernels(kernels, [&](const Configuration& a, const Configuration& b) {
    const bool a_fits = a.workspace_bytes() <= total_limit;
    const bool b_fits = b.workspace_bytes() <= total_limit;
    return a_fits != b_fits ? a_fits : a.time_ms() < b.time_ms();
  });
  if (arena_of(kernels, plan.choice, alignment) > total_limit) {
    auto solved = solve_in_whole_units(kernels, total_limit, alignment);
    if (!solved) return Error{solved.error()};
    plan.choice = solved->choice;
    plan.variables = solved->variables;
    plan.unfixed_variables = solved->unfixed_variables;
    if (plan.choice.empty()) plan.choice = lightest;  // not even those fit in whole units
    use_the_last_unit(kernels, total_limit, alignment, plan.choice);
  }
  std::vector<Configuration> chosen;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    chosen.push_back(kernels[k].front[plan.choice[k]]);
    plan.time_ms += chosen.back().time_ms();
  }
  plan.offsets = segment_offsets(chosen, alignment);
  plan.workspace_bytes = plan.offsets.back();
  plan.offsets.pop_back();
  if (plan.workspace_bytes > total_limit)
    return Error{"the WD integer program exceeded the limit (" +
                 std::to_string(plan.workspace_bytes) + " > " + std::to_string(total_limit) +
                 " bytes)"};
  return plan;
}

std::vector<std::uint64_t> segment_offsets(const std::vector<Configuration>& chosen,
                                           std::uint64_t alignment) {
  if (alignment == 0) alignment = 1;
  // The segment that would waste the most padding goes last, where it needs none.
  std::size_t last = chosen.size();
  for (std::size_t i = 0; i < chosen.size(); ++i)
    if (last == chosen.size() || padding_of(chosen[i].workspace_bytes(), alignment) >=
                                     padding_of(chosen[last].workspace_bytes(), alignment))
      last = i;
  std::vector<std::uint64_t> offsets(chosen.size() + 1, 0);
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    if (i == last) continue;
    offsets[i] = offset;
    offset = saturating_add(offset, aligned_size(chosen[i].workspace_bytes(), alignment));
  }
  if (last < chosen.size()) {
    offsets[last] = offset;
    offset = saturating_add(offset, chosen[last].workspace_bytes());
  }
  offsets.back() = offset;
  return offsets;
}

}  // namespace ucudnn
