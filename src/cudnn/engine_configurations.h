#pragma once
// The engine configurations cuDNN's heuristics offer for a convolution graph: modes A, B and
// the fallback list, each asked once, in that order, deduplicated by name (engine id and knob
// choices, core/engine_name.h), each with its numerical notes, so that the planner measures
// exactly what a framework would choose among and never one the application's numerics forbid.
#include <cudnn.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "core/convolution_problem.h"
#include "core/engine_name.h"
#include "core/expected.h"
#include "core/knob_variants.h"
#include "cudnn/backend_descriptor.h"
#include "cudnn/convolution_graph.h"

namespace ucudnn::cudnn {

struct EngineNotes {
  bool known = true;  // false: cuDNN could not say (the other fields are then all true)
  bool tensor_core = false;
  bool down_convert = false;       // inputs converted to a narrower type
  bool reduced_precision = false;  // reductions in a narrower type than the compute type
  bool nondeterministic = false;
};

struct EngineConfiguration {
  EngineName name;
  EngineNotes notes;
  // At the graph's shape, as the heuristics say; nullopt where cuDNN cannot say (before 9.2 it
  // has no CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE: a plan's workspace says it,
  // configuration_sizing.h).
  std::optional<std::uint64_t> workspace_bytes;
};

// An engine's notes; unreadable ones are taken as the ones an application is least likely to
// allow.
EngineNotes engine_notes(const BackendDescriptor& engine);

// Empty when the library offers none (or has no graph API).
// `complete` (optional): false where a mode failed otherwise than by cuDNN's refusal, or a
// result's name or notes could not be read (the answer may differ if asked again).
std::vector<EngineConfiguration> engine_configurations(const ConvolutionGraph& graph,
                                                       bool* complete = nullptr);

// What a finalized execution plan (the application's) runs: the engine's notes (unknown when
// cuDNN cannot say), and the configuration's name (nullopt when cuDNN cannot say all of it: a
// name without its knobs would be another configuration).
struct PlanEngine {
  EngineNotes notes{false, true, true, true, true};
  std::optional<EngineName> name;
};
PlanEngine plan_engine(cudnnBackendDescriptor_t plan);

// cuDNN's engine `engine_index` on `graph`, finalized; else the step cuDNN refused and its
// status ("engine index (status 3)").
Expected<BackendDescriptor> finalized_engine(const ConvolutionGraph& graph,
                                             std::int64_t engine_index);

// The knobs of engine `engine_index` on `graph` that size a workspace, as cuDNN describes them
// (core/knob_variants.h); empty where cuDNN refuses the engine or cannot say them all. Read only
// where a smaller workspace is wanted: an engine has a descriptor per knob type to read.
std::vector<KnobRange> workspace_knob_ranges(const ConvolutionGraph& graph,
                                             std::int64_t engine_index);

// Whether numerics of this kind are what the application allowed: tensor cores unless its math
// type is FMA; converted inputs and reduced-precision reductions only where it allows
// conversion; nondeterminism only where it does not ask for determinism.
bool allowed(const EngineNotes& notes, MathType math, bool deterministic_only);

}  // namespace ucudnn::cudnn
