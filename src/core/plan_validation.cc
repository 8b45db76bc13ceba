#include "core/plan_validation.h"

#include <limits>

#include "core/reduction_precision.h"

namespace ucudnn {

std::optional<std::string> plan_validation_error(const KernelKey& kernel, const Configuration& plan,
                                                 const std::string& backend,
                                                 std::uint64_t workspace_limit,
                                                 const WorkspaceQuery& workspace_of) {
  if (plan.micro.empty()) return "the plan has no micro-batches";
  if (plan.micro.size() > 1 && splitting_reduces_precision(kernel))
    return "a plan of " + std::to_string(plan.micro.size()) +
           " micro-batches would sum dw in its 16-bit type, which the kernel's math type does "
           "not allow";
  const std::int64_t batch = kernel.problem.batch();
  std::int64_t covered = 0;
  for (const auto& m : plan.micro) {
    if (m.batch <= 0 || m.batch > batch)
      return "micro-batch of " + std::to_string(m.batch) + " images in a batch of " +
             std::to_string(batch);
    covered += m.batch;  // no overflow: each term <= batch, at most plan size terms checked
    if (covered > batch)
      return "micro-batches cover more than the batch of " + std::to_string(batch);
    if (m.backend != backend)
      return "micro-batch on backend '" + m.backend + "', expected '" + backend + "'";
    const auto workspace = workspace_of(kernel.with_batch(m.batch), m.algorithm);
    if (!workspace)
      return "algorithm '" + m.algorithm + "' is unknown or does not support a micro-batch of " +
             std::to_string(m.batch);
    if (*workspace > m.workspace_bytes)
      return "algorithm '" + m.algorithm + "' at " + std::to_string(m.batch) + " images needs " +
             std::to_string(*workspace) + " bytes, the plan claims " +
             std::to_string(m.workspace_bytes);
    if (*workspace > workspace_limit)
      return "algorithm '" + m.algorithm + "' at " + std::to_string(m.batch) + " images needs " +
             std::to_string(*workspace) + " bytes, over the limit of " +
             std::to_string(workspace_limit);
  }
  if (covered != batch)
    return "micro-batches cover " + std::to_string(covered) + " of " + std::to_string(batch) +
           " images";
  return std::nullopt;
}

}  // namespace ucudnn
