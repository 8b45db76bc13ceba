#pragma once
// Configurations of one engine that need less workspace than the one cuDNN's heuristics chose.
// The heuristics pick each engine's knobs for speed with no thought of a limit: a split-K
// engine's partial sums take a workspace of (buffers or slices) x the output, which no
// micro-batch shrinks where the output is BackwardFilter's dw. Under a tight limit the same
// engine with fewer buffers may fit and still beat every configuration that does; micro-batching
// cannot find it, so the planner offers it beside the heuristics' choice. cuDNN says each
// knob's range (its knob info); a value it then refuses is simply no candidate.
#include <cstdint>
#include <vector>

#include "core/engine_name.h"

namespace ucudnn {

// An engine's knob as cuDNN describes it: its type (cudnnBackendKnobType_t) and the values it
// takes, minimum to maximum on the stride.
struct KnobRange {
  std::int64_t type = 0;
  std::int64_t minimum = 0;
  std::int64_t maximum = 0;
  std::int64_t stride = 1;
  friend bool operator==(const KnobRange&, const KnobRange&) = default;
};

// Whether a knob of this type sizes the workspace (split-K, its buffers and slices, the
// workspace knob: CUDNN_KNOB_TYPE_SPLIT_K, _SPLIT_K_BUF, _SPLIT_K_SLC, _WORKSPACE).
bool sizes_workspace(std::int64_t knob_type);

// `name` with the knobs that size its workspace lowered within their ranges: for each such knob
// above its minimum, its value halved (on the stride) down to the minimum, at most `per_knob`
// values, and every such knob at its minimum together. Never `name` itself; each once; none
// where no knob of `name` sizes the workspace or its range is unknown.
std::vector<EngineName> smaller_workspace_variants(const EngineName& name,
                                                   const std::vector<KnobRange>& ranges,
                                                   int per_knob = 3);

}  // namespace ucudnn
