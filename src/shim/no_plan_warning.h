#pragma once
// What the user is told when a kernel gets no plan and its calls pass through undivided: once
// per kernel and limit, except where one cause leaves many kernels so (an exclusion of every
// candidate, measurements a call may not take): said once, each kernel at info.
#include <cstdint>
#include <string>

#include "shim/kernel_planner.h"

namespace ucudnn::shim {

// `error`: why planning `kernel` within `limit` failed, as plan_reuse says it.
void say_no_plan(const PlannerContext& context, const KernelKey& kernel, std::uint64_t limit,
                 const std::string& error);

}  // namespace ucudnn::shim
