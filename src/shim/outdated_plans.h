#pragma once
// Stored plans that are valid but no longer what planning would give: planned again, from the
// stored measurements and the new ones, where planning may measure, and replaced.
#include <cstdint>
#include <optional>
#include <string>

#include "shim/kernel_planner.h"

namespace ucudnn::shim {

// Why a valid stored plan within `limit` is no longer what planning would give (a suffix for a
// log line naming the plan): it was made among the legacy algorithms where cuDNN's engine
// configurations are now the candidates (an older database), from measurements since replaced,
// or without a configuration the application runs that fits the limit at the smallest planned
// size (one that does not was no candidate, and is never measured, within it). Planned again,
// from the stored measurements and the new ones, and replaced.
std::optional<std::string> outdated(const PlannerContext& context, const KernelKey& kernel,
                                    const Configuration& plan, std::uint64_t limit);

// Whether a stored plan was made among other candidates than the context's: cuDNN's engine
// configurations where the legacy algorithms are asked for (UCUDNN_CANDIDATES=algorithms), or
// the legacy algorithms where the engines are the candidates and the library has them.
bool planned_among_other_candidates(const PlannerContext& context, const Configuration& plan);

}  // namespace ucudnn::shim
