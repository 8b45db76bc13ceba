#pragma once
// WD (µ-cuDNN section III-C, equations 1-4): one workspace for the whole network. A 0-1
// ILP (GLPK) picks exactly one configuration per kernel from its desirable set, minimizing
// the summed time subject to the summed workspace <= the total limit.
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "core/pareto_front.h"

namespace ucudnn {

struct KernelCandidates {
  std::string name;   // for messages, e.g. "conv2 Forward"
  ParetoFront front;  // desirable configurations of the kernel
};

struct DivisionPlan {
  std::vector<std::size_t> choice;     // per kernel, the index into its front
  std::vector<std::uint64_t> offsets;  // per kernel, its segment's offset in the arena
  double time_ms = 0;
  std::uint64_t workspace_bytes = 0;  // the arena's size, as segment_offsets gives it
  std::size_t variables = 0;          // binary variables of the program (0: trivially solved)
  std::size_t unfixed_variables = 0;  // those left after reduced-cost fixing
};

// Every segment starts at a multiple of `alignment` bytes and the arena, laid out as
// segment_offsets lays it out, always fits in `total_limit` bytes. The optimum is exact where
// the limit is a multiple of `alignment`; otherwise the remainder below one unit goes to the
// kernel that gains the most from it. Errors: a kernel without any configuration, or a limit
// below the smallest feasible total (the message names that total).
Expected<DivisionPlan> plan_workspace_division(const std::vector<KernelCandidates>& kernels,
                                               std::uint64_t total_limit,
                                               std::uint64_t alignment = 256);

// Segments for `chosen`, each at a multiple of `alignment` bytes, laid out in its order but
// for the one that would waste the most padding, which goes last and needs none: per
// configuration its offset, then the arena's size (the last segment's end).
std::vector<std::uint64_t> segment_offsets(const std::vector<Configuration>& chosen,
                                           std::uint64_t alignment = 256);

}  // namespace ucudnn
