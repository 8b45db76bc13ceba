#pragma once
// The candidates of a kernel that runs from a stored plan, for UCUDNN_EXCLUDE_ALGORITHMS's
// account (an entry that matched none is named at exit): such a kernel lists none, so that with
// a warm database a mistyped entry went unnamed.
#include "core/benchmarker.h"
#include "core/kernel_key.h"
#include "shim/kernel_planner.h"

namespace ucudnn::shim {

// Notes those the database has measurements of at the sizes the policy plans (of the kind
// asked for: engines, or the legacy algorithms), once per kernel and while an entry is idle;
// `host`: the CPU's too, from its own list, for a hybrid plan.
void note_stored_candidates(const PlannerContext& context, const KernelKey& kernel,
                            Benchmarker* host = nullptr);

}  // namespace ucudnn::shim
