#include "cudnn/engine_configurations.h"

#include <algorithm>
#include <set>
#include <string>

namespace ucudnn::cudnn {

namespace {

// The descriptors of `name` held by `from`, read into fresh ones of `type`: at most `most`;
// nullopt when cuDNN cannot say (not the same as none).
std::optional<std::vector<BackendDescriptor>> read_descriptors(cudnnBackendDescriptor_t from,
                                                               cudnnBackendAttributeName_t name,
                                                               cudnnBackendDescriptorType_t type,
                                                               std::int64_t most) {
  std::vector<BackendDescriptor> owned;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (std::int64_t i = 0; i < most; ++i) {
    owned.emplace_back(type);
    if (!owned.back()) return std::nullopt;
    raw.push_back(owned.back().get());
  }
  std::int64_t count = 0;
  if (get_attribute(from, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, most, &count, raw.data()) !=
      CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  owned.resize(static_cast<std::size_t>(std::clamp<std::int64_t>(count, 0, most)));
  return owned;
}

// The one engine a configuration names.
std::optional<BackendDescriptor> read_engine(cudnnBackendDescriptor_t configuration) {
  auto engines = read_descriptors(configuration, CUDNN_ATTR_ENGINECFG_ENGINE,
                                  CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1);
  if (!engines || engines->size() != 1) return std::nullopt;
  return std::move(engines->front());
}

}  // namespace

EngineNotes engine_notes(const BackendDescriptor& engine) {
  EngineNotes notes;
  cudnnBackendNumericalNote_t values[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  std::int64_t count = 0;
  if (engine.get(CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count, values) != CUDNN_STATUS_SUCCESS) {
    // Unknown numerics are taken as the ones an application is least likely to allow.
    return {false, true, true, true, true};
  }
  for (std::int64_t i = 0; i < std::min<std::int64_t>(count, CUDNN_NUMERICAL_NOTE_TYPE_COUNT);
       ++i) {
    notes.tensor_core |= values[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
    notes.down_convert |= values[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
    notes.reduced_precision |= values[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION;
    notes.nondeterministic |= values[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
  }
  return notes;
}

namespace {

// A configuration's name: its engine's global index and its knob choices; nullopt when any
// part cannot be read (a name without its knobs would run another configuration).
std::optional<EngineName> read_name(cudnnBackendDescriptor_t configuration,
                                    const BackendDescriptor& engine) {
  std::int64_t index = -1, count = 0;
  if (engine.get(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count, &index) !=
          CUDNN_STATUS_SUCCESS ||
      count != 1 || index < 0)
    return std::nullopt;
  const auto choices =
      read_descriptors(configuration, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                       CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS);
  if (!choices) return std::nullopt;
  std::vector<std::pair<std::int64_t, std::int64_t>> knobs;
  for (const BackendDescriptor& choice : *choices) {
    cudnnBackendKnobType_t type{};
    std::int64_t value = 0;
    if (choice.get(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &count, &type) !=
            CUDNN_STATUS_SUCCESS ||
        choice.get(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &count, &value) !=
            CUDNN_STATUS_SUCCESS)
      return std::nullopt;
    knobs.emplace_back(static_cast<std::int64_t>(type), value);
  }
  return EngineName::of(index, std::move(knobs));
}

// The ranges of `engine`'s knobs that size a workspace; empty where cuDNN cannot say them all.
std::vector<KnobRange> read_workspace_knobs(const BackendDescriptor& engine) {
  const auto infos = read_descriptors(engine.get(), CUDNN_ATTR_ENGINE_KNOB_INFO,
                                      CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS);
  if (!infos) return {};
  std::vector<KnobRange> ranges;
  for (const BackendDescriptor& info : *infos) {
    cudnnBackendKnobType_t type{};
    KnobRange range;
    std::int64_t count = 0;
    if (info.get(CUDNN_ATTR_KNOB_INFO_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &count, &type) !=
            CUDNN_STATUS_SUCCESS ||
        info.get(CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE, CUDNN_TYPE_INT64, 1, &count, &range.minimum) !=
            CUDNN_STATUS_SUCCESS ||
        info.get(CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE, CUDNN_TYPE_INT64, 1, &count, &range.maximum) !=
            CUDNN_STATUS_SUCCESS ||
        info.get(CUDNN_ATTR_KNOB_INFO_STRIDE, CUDNN_TYPE_INT64, 1, &count, &range.stride) !=
            CUDNN_STATUS_SUCCESS)
      return {};
    range.type = static_cast<std::int64_t>(type);
    if (sizes_workspace(range.type)) ranges.push_back(range);
  }
  return ranges;
}

// A heuristics result as a name and notes; nullopt when its name cannot be read.
std::optional<EngineConfiguration> read_configuration(const BackendDescriptor& configuration) {
  const auto engine = read_engine(configuration.get());
  if (!engine) return std::nullopt;
  auto name = read_name(configuration.get(), *engine);
  if (!name) return std::nullopt;
  std::int64_t workspace = 0, count = 0;
  std::optional<std::uint64_t> bytes;
  if (configuration.get(CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &count,
                        &workspace) == CUDNN_STATUS_SUCCESS &&
      count == 1 && workspace >= 0)
    bytes = static_cast<std::uint64_t>(workspace);
  return EngineConfiguration{std::move(*name), engine_notes(*engine), bytes};
}

}  // namespace

std::vector<EngineConfiguration> engine_configurations(const ConvolutionGraph& graph,
                                                       bool* complete) {
  std::vector<EngineConfiguration> found;
  std::set<std::string> seen;
  if (complete) *complete = true;
  // cuDNN's refusal (a bad parameter, or not supported) is its answer; any other failure may
  // pass (no memory now, an internal error), and the answer is then incomplete.
  const auto answered = [&](cudnnStatus_t status) {
    const int kind = static_cast<int>(status) / 1000;
    if (status != CUDNN_STATUS_SUCCESS && kind != 2 && kind != 3 && complete) *complete = false;
    return status == CUDNN_STATUS_SUCCESS;
  };
  for (const cudnnBackendHeurMode_t mode :
       {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_B, CUDNN_HEUR_MODE_FALLBACK}) {
    BackendDescriptor heuristics(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    const cudnnBackendDescriptor_t g = graph.get();
    if (!heuristics) {
      if (complete) *complete = false;
      continue;
    }
    if (!answered(heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR, g)) ||
        !answered(heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode)) ||
        !answered(heuristics.finalize()))
      continue;  // a mode this library or graph does not offer
    std::int64_t count = 0;
    if (!answered(heuristics.get(CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                 &count, nullptr)) ||
        count <= 0)
      continue;
    const auto results = read_descriptors(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                          CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, count);
    if (!results) {
      if (complete) *complete = false;
      continue;
    }
    for (const BackendDescriptor& c : *results) {
      auto configuration = read_configuration(c);
      // A result whose name or notes could not be read (a descriptor not made, a failed read)
      // may read whole if asked again: left out now, and the answer is not whole.
      if ((!configuration || !configuration->notes.known) && complete) *complete = false;
      if (configuration && seen.insert(configuration->name.to_string()).second)
        found.push_back(std::move(*configuration));
    }
  }
  return found;
}

PlanEngine plan_engine(cudnnBackendDescriptor_t plan) {
  PlanEngine read;
  auto configurations = read_descriptors(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
                                         CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, 1);
  if (!configurations || configurations->size() != 1) return read;
  const cudnnBackendDescriptor_t configuration = configurations->front().get();
  const auto engine = read_engine(configuration);
  if (!engine) return read;
  read.notes = engine_notes(*engine);
  read.name = read_name(configuration, *engine);
  return read;
}

Expected<BackendDescriptor> finalized_engine(const ConvolutionGraph& graph,
                                             std::int64_t engine_index) {
  const auto refused = [](const char* step, cudnnStatus_t status) {
    return Error{std::string(step) + " (status " + std::to_string(static_cast<int>(status)) + ")"};
  };
  BackendDescriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  if (!engine) return refused("engine", CUDNN_STATUS_NOT_SUPPORTED);
  const cudnnBackendDescriptor_t g = graph.get();
  if (auto status = engine.set(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, g);
      status != CUDNN_STATUS_SUCCESS)
    return refused("graph", status);
  if (auto status = engine.set(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, engine_index);
      status != CUDNN_STATUS_SUCCESS)
    return refused("engine index", status);
  if (auto status = engine.finalize(); status != CUDNN_STATUS_SUCCESS)
    return refused("engine", status);
  return engine;
}

std::vector<KnobRange> workspace_knob_ranges(const ConvolutionGraph& graph,
                                             std::int64_t engine_index) {
  const auto engine = finalized_engine(graph, engine_index);
  return engine ? read_workspace_knobs(*engine) : std::vector<KnobRange>{};
}

bool allowed(const EngineNotes& notes, MathType math, bool deterministic_only) {
  if (notes.tensor_core && math == MathType::kFma) return false;
  if (notes.down_convert && !allows_down_conversion(math)) return false;
  if (notes.reduced_precision && !allows_reduced_precision_reduction(math)) return false;
  return !(notes.nondeterministic && deterministic_only);
}

}  // namespace ucudnn::cudnn
