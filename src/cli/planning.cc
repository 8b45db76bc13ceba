#include "planning.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>

#include "core/division_key.h"
#include "core/pareto_front.h"
#include "core/plan_mode.h"
#include "core/sharing_groups.h"
#include "core/workspace_reuse.h"
#include "core/workspace_sharing.h"

namespace ucudnn::cli {

bool KernelPlan::runnable() const {
  return std::any_of(table.candidates.begin(), table.candidates.end(),
                     [](const auto& at_size) { return !at_size.empty(); });
}

namespace {

Expected<DivisionOutcome> divide(const std::vector<NetworkKernel>& kernels, NetworkPlan& plan,
                                 std::uint64_t total) {
  // Which kernels may overlap: those of other streams (the network file's "stream").
  std::vector<SharingMember> sharing(plan.distinct.size());
  for (std::size_t d = 0; d < plan.distinct.size(); ++d)
    for (auto use : plan.distinct[d].uses) {
      auto& streams = sharing[d].streams;
      const auto stream = static_cast<std::uintptr_t>(kernels[use].stream);
      if (std::find(streams.begin(), streams.end(), stream) == streams.end())
        streams.push_back(stream);
    }
  const SharingGroups groups = sharing_groups(sharing);
  const auto reasons = sharing_reasons(
      groups, [](std::uintptr_t s) { return std::string("stream ").append(std::to_string(s)); });
  std::vector<SharingKernel> candidates;
  for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
    const auto& uses = plan.distinct[d].uses;
    std::string name = kernels[plan.distinct[d].first].label();
    if (uses.size() > 1) name += " (x" + std::to_string(uses.size()) + ")";
    // A kernel used n times costs n times its time in every iteration.
    candidates.push_back({std::move(name), desirable_configurations(plan.plans[d].table),
                          static_cast<double>(uses.size()), groups.group_of[d]});
  }
  auto division = plan_shared_division(candidates, groups.count, total);
  if (!division) return Error{division.error()};
  DivisionOutcome outcome;
  // Named by the set of kernels, their uses and which share, as the shim names the network it
  // learns; laid out as the shim lays out the stored division.
  std::vector<DivisionMember> members;
  for (std::size_t d = 0; d < plan.distinct.size(); ++d)
    members.push_back({kernels[plan.distinct[d].first].key.hash_hex(),
                       static_cast<std::int64_t>(plan.distinct[d].uses.size()),
                       static_cast<std::int64_t>(groups.group_of[d])});
  auto key = division_key(members);
  for (std::size_t d = 0; d < candidates.size(); ++d)
    outcome.chosen.push_back(candidates[d].front[division->choice[d]]);
  std::vector<Configuration> listed;
  for (auto d : key.order) listed.push_back(outcome.chosen[d]);
  const auto layout = shared_segment_layout(listed, key.segment_of);
  outcome.offsets.resize(candidates.size());
  std::vector<std::uint64_t> segment_bytes(candidates.size());
  for (std::size_t i = 0; i < key.order.size(); ++i) {
    outcome.offsets[key.order[i]] = layout.offset[i];
    segment_bytes[key.order[i]] = layout.bytes[i];
  }
  // One segment per group, in layout order: a group whose segment is empty starts where the next
  // one does, so the offset alone cannot tell them apart, and it comes first (a segment reaches
  // the next one's start).
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::size_t>, std::size_t> segment_of_group;
  auto place = [&](std::size_t d) {
    return std::tuple(outcome.offsets[d], segment_bytes[d], candidates[d].group);
  };
  for (std::size_t d = 0; d < candidates.size(); ++d) segment_of_group.try_emplace(place(d), 0);
  for (auto& [at, segment] : segment_of_group) {
    segment = outcome.segments.size();
    const auto& [offset, bytes, group] = at;
    outcome.segments.push_back({offset, bytes, {}, reasons[group]});
  }
  for (std::size_t d = 0; d < candidates.size(); ++d) {
    const auto s = segment_of_group.at(place(d));
    outcome.segment.push_back(s);
    outcome.segments[s].kernels.push_back(d);
  }
  outcome.subject = std::move(key.subject);
  outcome.stored_order = std::move(key.order);
  outcome.time_ms = division->time_ms;
  outcome.workspace_bytes = layout.arena_bytes;
  outcome.variables = division->variables;
  return outcome;
}

}  // namespace

NetworkPlan plan_network(Benchmarker& measurements, const std::vector<NetworkKernel>& kernels,
                         const PlanningRequest& request) {
  NetworkPlan plan;
  plan.distinct = distinct_kernels(kernels);
  plan.distinct_of.resize(kernels.size());
  for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
    for (auto use : plan.distinct[d].uses) plan.distinct_of[use] = d;
    KernelPlan kernel_plan;
    kernel_plan.table = measure_micro_table(measurements, kernels[plan.distinct[d].first].key,
                                            request.policy, kNoWorkspaceLimit);
    const MicroTable limited = restrict_to_limit(kernel_plan.table, request.workspace_limit);
    if (auto wr = plan_workspace_reuse(limited)) {
      kernel_plan.plan = *wr;
      kernel_plan.plan_limits = limits_answered(
          limited, *wr,
          request.knob_variants ? std::optional(request.workspace_limit) : std::nullopt);
    } else if (!kernel_plan.runnable()) {
      kernel_plan.plan_error = "the " + request.backend + " backend has no algorithm for it";
    } else {
      kernel_plan.plan_error = wr.error();
    }
    if (!limited.candidates.empty())
      if (const MicroConfiguration* best = fastest(limited.candidates.back()))
        kernel_plan.undivided = *best;
    if (!kernel_plan.table.candidates.empty())
      if (const MicroConfiguration* best = fastest(kernel_plan.table.candidates.back()))
        kernel_plan.unlimited = *best;
    plan.plans.push_back(std::move(kernel_plan));
  }
  if (request.total_workspace) plan.division = divide(kernels, plan, *request.total_workspace);
  return plan;
}

void store_plans(BenchmarkStore& store, const std::string& fingerprint,
                 const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan,
                 const PlanningRequest& request) {
  const std::string policy(name_of(request.policy));
  for (std::size_t d = 0; d < plan.distinct.size(); ++d)
    if (const auto& wr = plan.plans[d].plan)
      store.put_plan({fingerprint, kernels[plan.distinct[d].first].key.to_string(), policy,
                      request.workspace_limit, plan_mode(kReuseMode, false, request.knob_variants)},
                     {*wr}, plan.plans[d].plan_limits);
  if (plan.division && *plan.division) {
    const DivisionOutcome& wd = **plan.division;
    std::vector<Configuration> stored;
    for (auto d : wd.stored_order) stored.push_back(wd.chosen[d]);
    store.put_plan(
        {fingerprint, wd.subject, policy, *request.total_workspace, std::string(kDivisionMode)},
        stored);
  }
}

}  // namespace ucudnn::cli
