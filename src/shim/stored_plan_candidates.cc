#include "shim/stored_plan_candidates.h"

#include <set>
#include <string>
#include <vector>

#include "core/algorithm_exclusion.h"
#include "core/engine_name.h"
#include "core/reduction_precision.h"

namespace ucudnn::shim {

void note_stored_candidates(const PlannerContext& context, const KernelKey& kernel,
                            Benchmarker* host) {
  ExclusionAccount* account = context.exclusion_account;
  if (!account) return;
  if (account->wants_stored_candidates("cudnn", kernel.to_string())) {
    std::set<std::string> micro_kernels;
    for (const auto size : planned_micro_batch_sizes(kernel, context.policy))
      micro_kernels.insert(kernel.with_batch(size).to_string());
    auto names =
        context.store.measured_algorithms(context.fingerprint.to_string(), "cudnn", micro_kernels);
    // Those of the candidates asked for: a legacy algorithm's old rows name no engine's.
    std::erase_if(names, [&](const std::string& name) {
      return is_engine_name(name) != context.engine_candidates;
    });
    account->note_stored_candidates("cudnn", names);
  }
  // The host lists its solvers without measuring: its own list.
  if (host && account->wants_stored_candidates(host->backend_name(), kernel.to_string()))
    account->note_stored_candidates(host->backend_name(), host->algorithms(kernel), true);
}

}  // namespace ucudnn::shim
