#pragma once
// Step 1 of µ-cuDNN's WR and WD: the measured micro-configurations of one kernel, for
// every micro-batch size the policy allows, restricted to a workspace limit.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/batch_size_policy.h"
#include "core/benchmarker.h"
#include "core/configuration.h"

namespace ucudnn {

inline constexpr std::uint64_t kNoWorkspaceLimit = std::numeric_limits<std::uint64_t>::max();

struct MicroTable {
  std::int64_t batch = 0;
  // sizes[i] is a micro-batch size; candidates[i] its micro-configurations that fit.
  std::vector<std::int64_t> sizes;
  std::vector<std::vector<MicroConfiguration>> candidates;
  // The smallest workspace of a micro-configuration left out for being over the limit
  // (kNoWorkspaceLimit: none was): up to it, a larger limit would change nothing.
  std::uint64_t smallest_over_limit = kNoWorkspaceLimit;
  // False when some measurement could not be taken now (MeasurementUnavailable): a plan
  // made from this table may be worse than the optimum and must not outlive the process.
  bool complete = true;
  // (candidate, micro-batch) pairs not measured because they could not win (Pruning).
  std::size_t pruned = 0;
  // Candidates the backend did not list for a limit on how many it measures
  // (UCUDNN_BENCHMARK_LIMIT): a plan from this table is the best among the others only.
  std::size_t left_out = 0;
};

// How much of the table is measured: what a job's first run spends measuring.
//  kExhaustive: every candidate at every size (offline benchmarking, whose tables serve every
//    limit and the reports);
//  kFastest (WR): every candidate at the largest size B first, then the smaller sizes in
//    decreasing order. A smaller batch takes a GPU no less time per image, so a candidate's
//    time per image at the smallest size it was measured at bounds it at every smaller size. An
//    entry is skipped where that bound, with every other image of a plan at the least time per
//    image anything is known to take, exceeds the best plan of the sizes measured so far, or
//    where a candidate measured at that size before it fits the limit and is faster than the
//    bound (a WR plan takes the fastest candidate that fits at each size): it could be in no
//    better plan under any limit this table or its stored plan answers;
//  kDominated (WD and the hybrid split): the sizes in increasing order. GPU time and workspace
//    do not shrink as the batch grows, so a candidate's measurement at one size bounds it from
//    below at the next; where a candidate measured at that size before it (the heuristics'
//    order puts the best first) is faster than the bound and needs no more workspace, the
//    candidate could be on no Pareto front.
enum class Pruning { kExhaustive, kFastest, kDominated };

MicroTable measure_micro_table(Benchmarker& benchmarker, const KernelKey& kernel,
                               BatchSizePolicy policy, std::uint64_t workspace_limit,
                               Pruning pruning = Pruning::kExhaustive);

// The same table without the micro-configurations whose workspace exceeds `limit`: one
// measurement serves every limit.
MicroTable restrict_to_limit(const MicroTable& table, std::uint64_t limit);

// The fastest micro-configuration of each size (ties: smaller workspace, then name),
// or none for a size where nothing fits.
const MicroConfiguration* fastest(const std::vector<MicroConfiguration>& candidates);

}  // namespace ucudnn
