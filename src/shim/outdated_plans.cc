// Why a valid stored plan is no longer what planning would give (outdated_plans.h).
#include "shim/outdated_plans.h"

#include <algorithm>

#include "core/engine_name.h"
#include "core/reduction_precision.h"
#include "cudnn/backend_api.h"
#include "cudnn/candidate_workspace.h"

namespace ucudnn::shim {

namespace {

// The smallest micro-batch size `kernel` is planned at, where a candidate needs the least
// workspace.
KernelKey smallest_planned(const PlannerContext& context, const KernelKey& kernel) {
  return kernel.with_batch(planned_micro_batch_sizes(kernel, context.policy).front());
}

// A plan whose cuDNN micro-batches name legacy algorithms ("FFT_TILING").
bool planned_among_algorithms(const Configuration& plan) {
  return std::any_of(plan.micro.begin(), plan.micro.end(), [](const MicroConfiguration& m) {
    return m.backend == "cudnn" && !is_engine_name(m.algorithm);
  });
}

// A plan whose cuDNN micro-batches name engine configurations ("eng4{k2=1}").
bool planned_among_engines(const Configuration& plan) {
  return std::any_of(plan.micro.begin(), plan.micro.end(), [](const MicroConfiguration& m) {
    return m.backend == "cudnn" && is_engine_name(m.algorithm);
  });
}

// A micro-batch of `plan` whose stored measurement is another than the one it was planned from
// (measured again, or replaced by a newer one from `ucudnn db merge` or import): the plan is the
// best by measurements that are gone. A micro-batch without a stored measurement tells nothing.
std::optional<std::string> measured_otherwise(const PlannerContext& context,
                                              const KernelKey& kernel, const Configuration& plan) {
  const std::string device = context.fingerprint.to_string();
  for (const auto& m : plan.micro) {
    const auto stored =
        context.store.find_measurement(device, kernel.with_batch(m.batch), m.backend, m.algorithm);
    if (!stored) continue;
    if (!stored->measurement)
      return m.backend + ":" + m.algorithm + " at " + std::to_string(m.batch) +
             " is now measured unsupported";
    if (stored->measurement->time_ms != m.time_ms ||
        stored->measurement->workspace_bytes != m.workspace_bytes)
      return m.backend + ":" + m.algorithm + " at " + std::to_string(m.batch) + " now takes " +
             std::to_string(stored->measurement->time_ms) + " ms, planned at " +
             std::to_string(m.time_ms);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> outdated(const PlannerContext& context, const KernelKey& kernel,
                                    const Configuration& plan, std::uint64_t limit) {
  if (auto changed = measured_otherwise(context, kernel, plan))
    return " was made from measurements since replaced (" + *changed +
           "): planning it again from the stored ones";
  if (planned_among_other_candidates(context, plan))
    return context.engine_candidates
               ? std::string(
                     " was made among the legacy algorithms: planning it again among cuDNN's "
                     "engine configurations")
               : std::string(
                     " was made among cuDNN's engine configurations: planning it again among "
                     "the legacy algorithms (UCUDNN_CANDIDATES=algorithms)");
  if (!context.unplanned_application_engine) return std::nullopt;
  const auto bytes =
      cudnn::candidate_workspace(context.api, context.handle, smallest_planned(context, kernel),
                                 *context.unplanned_application_engine, context.kept_plans);
  if (!bytes || *bytes > limit) return std::nullopt;
  return " was made without the application's engine configuration " +
         *context.unplanned_application_engine + ": planning it again with it";
}

bool planned_among_other_candidates(const PlannerContext& context, const Configuration& plan) {
  if (context.engine_candidates)
    return planned_among_algorithms(plan) && cudnn::has_graph_api(cudnn::backend_api());
  return planned_among_engines(plan);
}

}  // namespace ucudnn::shim
