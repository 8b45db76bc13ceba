#pragma once
// `ucudnn plan --explain`: per kernel, why its plan won. The undivided algorithms that fit the
// limit with their times (and those the limit left out), the plan's micro-batches against the
// fastest of them, and what a larger limit would buy: the next point of the kernel's Pareto
// front beyond the limit, or that none would. Under --total-workspace also where WD runs it:
// the arena's segment it shares with the kernels of its stream, or owns, and why.
#include <cstdio>
#include <optional>
#include <vector>

#include "common_options.h"
#include "network_kernels.h"
#include "planning.h"

namespace ucudnn::cli {

// The first configuration of the kernel's desirable set that needs more than `limit`: the
// fastest a larger limit makes possible at the smallest extra workspace. None when nothing
// faster exists beyond the limit.
std::optional<Configuration> next_pareto_point(const KernelPlan& plan, std::uint64_t limit);

void print_plan_explanation(std::FILE* out, const std::vector<NetworkKernel>& kernels,
                            const NetworkPlan& plan, const PlanningRequest& request);

}  // namespace ucudnn::cli
