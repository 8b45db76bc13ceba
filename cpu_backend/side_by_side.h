#pragma once
// A plan and its undivided baseline run for real on the same random inputs, as `ucudnn
// bench` checks a plan: both outputs compared normwise against the solvers' stated
// tolerances, and both timed, interleaved (one run of each per round) so that a noisy
// machine disturbs them alike.
#include <random>

#include "core/configuration.h"
#include "core/kernel_key.h"
#include "core/output_comparison.h"

namespace ucudnn::cpu {

class ThreadPool;

// Throws std::invalid_argument for a configuration run_configuration refuses, and
// std::bad_alloc when the buffers do not fit in memory.
SideBySideRuns run_side_by_side(const KernelKey& kernel, const Configuration& plan,
                                const Configuration& baseline, int repeats, ThreadPool& pool,
                                std::mt19937_64& random);

}  // namespace ucudnn::cpu
