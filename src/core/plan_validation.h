#pragma once
// A plan read from a database (possibly shared, possibly poisoned) is checked before use:
// its micro-batches are positive and sum to the kernel's batch, each names a known
// algorithm of the expected backend, and each micro-configuration's workspace, as the
// device states it now, is within the limit and no more than the plan claims. A plan that fails is
// discarded and re-planned.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/configuration.h"
#include "core/kernel_key.h"

namespace ucudnn {

// The device's own answer for (micro-batch kernel, algorithm): its workspace in bytes, or
// nullopt when the algorithm is unknown or does not support that micro-batch.
using WorkspaceQuery =
    std::function<std::optional<std::uint64_t>(const KernelKey& micro, const std::string&)>;

// nullopt when the plan is valid; otherwise why not.
std::optional<std::string> plan_validation_error(const KernelKey& kernel, const Configuration& plan,
                                                 const std::string& backend,
                                                 std::uint64_t workspace_limit,
                                                 const WorkspaceQuery& workspace_of);

}  // namespace ucudnn
