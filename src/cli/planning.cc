#include "planning.h"

#include "core/division_key.h"
#include "core/pareto_front.h"
#include "core/workspace_division.h"
#include "core/workspace_reuse.h"

namespace ucudnn::cli {

namespace {

Expected<DivisionOutcome> divide(const std::vector<NetworkKernel>& kernels, NetworkPlan& plan,
                                 std::uint64_t total) {
  std::vector<KernelCandidates> candidates;
  std::vector<ParetoFront> fronts;
  for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
    const auto& uses = plan.distinct[d].uses;
    ParetoFront front = desirable_configurations(restrict_to_limit(plan.plans[d].table, total));
    // A kernel used n times costs n times its time in every iteration.
    ParetoFront weighted = front;
    for (auto& configuration : weighted)
      for (auto& micro : configuration.micro) micro.time_ms *= static_cast<double>(uses.size());
    std::string name = kernels[plan.distinct[d].first].label();
    if (uses.size() > 1) name += " (x" + std::to_string(uses.size()) + ")";
    candidates.push_back({std::move(name), std::move(weighted)});
    fronts.push_back(std::move(front));
  }
  auto division = plan_workspace_division(candidates, total);
  if (!division) return Error{division.error()};
  DivisionOutcome outcome;
  // Named by the set of kernels and their uses, as the shim names the network it learns.
  std::vector<DivisionMember> members;
  for (const auto& d : plan.distinct)
    members.push_back({kernels[d.first].key.hash_hex(), static_cast<std::int64_t>(d.uses.size())});
  auto key = division_key(members);
  outcome.subject = std::move(key.subject);
  outcome.stored_order = std::move(key.order);
  for (std::size_t d = 0; d < fronts.size(); ++d)
    outcome.chosen.push_back(fronts[d][division->choice[d]]);
  outcome.offsets = division->offsets;
  outcome.time_ms = division->time_ms;
  outcome.workspace_bytes = division->workspace_bytes;
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
      kernel_plan.plan_limits = limits_answered(limited, *wr);
    } else
      kernel_plan.plan_error = wr.error();
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
                      request.workspace_limit, "WR"},
                     {*wr}, plan.plans[d].plan_limits);
  if (plan.division && *plan.division) {
    const DivisionOutcome& wd = **plan.division;
    std::vector<Configuration> stored;
    for (auto d : wd.stored_order) stored.push_back(wd.chosen[d]);
    store.put_plan({fingerprint, wd.subject, policy, *request.total_workspace, "WD"}, stored);
  }
}

}  // namespace ucudnn::cli
