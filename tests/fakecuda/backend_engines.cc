// The double's engines: for a graph of one convolution, engine i is the legacy algorithm i of
// the operation (cost_model.h: it applies where the model says, takes the model's time and
// workspace, and is nondeterministic where the algorithm is; the non-fused Winograd engines
// carry the TENSOR_CORE note, so that tests see a framework's choice of tensor cores honoured;
// the small-workspace GEMM engines take a tile and a split-K knob, model_engine; under
// FAKECUDA_SPLIT_K_WITHOUT_BETA=1 those with K split take no beta, writing the output from
// their buffers, as an engine cuDNN finalizes for beta = 0 and refuses for beta = 1 would);
// for a forward convolution with an
// epilogue, one fused engine (IMPLICIT_PRECOMP_GEMM, then the pointwise operations).
// FAKECUDA_ENGINE_NOTES="Forward:4=nondeterministic+down_convert;BackwardData:1=reduced_precision"
// gives engines (by operation and global index) numerical notes beside their model's, so that
// tests see each note an application's engine carries honoured, or forbidden to ucudnn's plans;
// "runtime_compiled" gives the behavior note of an engine cuDNN compiles at Finalize.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>

#include "backend_descriptors.h"
#include "cost_model.h"
#include "kernel_from_descriptors.h"

namespace ucudnn::fakecuda {

namespace {

constexpr int kFusedAlgorithm = 1;  // IMPLICIT_PRECOMP_GEMM

// Read at each finalize: one test sets it.
bool split_k_without_beta() {
  const char* value = std::getenv("FAKECUDA_SPLIT_K_WITHOUT_BETA");
  return value && std::strcmp(value, "1") == 0;
}

// The note names FAKECUDA_ENGINE_NOTES gives `engine` of an `operation` graph (read at each
// call: tests set it per run).
std::vector<std::string> configured_note_names(Operation operation, std::int64_t engine) {
  std::vector<std::string> names;
  const char* value = std::getenv("FAKECUDA_ENGINE_NOTES");
  if (!value) return names;
  std::istringstream entries(value);
  std::string entry;
  const std::string prefix = std::string(name_of(operation)) + ":" + std::to_string(engine) + "=";
  while (std::getline(entries, entry, ';')) {
    if (entry.compare(0, prefix.size(), prefix) != 0) continue;
    std::istringstream listed(entry.substr(prefix.size()));
    std::string name;
    while (std::getline(listed, name, '+')) names.push_back(name);
  }
  return names;
}

// Its numerical notes among them; an unknown name is ignored.
std::vector<cudnnBackendNumericalNote_t> configured_notes(Operation operation,
                                                          std::int64_t engine) {
  std::vector<cudnnBackendNumericalNote_t> notes;
  for (const std::string& name : configured_note_names(operation, engine)) {
    if (name == "nondeterministic") notes.push_back(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC);
    if (name == "down_convert") notes.push_back(CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
    if (name == "reduced_precision")
      notes.push_back(CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION);
    if (name == "tensor_core") notes.push_back(CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
  }
  return notes;
}

}  // namespace

std::vector<cudnnBackendNumericalNote_t> numerical_notes(const BackendGraph& graph,
                                                         const BackendEngine& engine) {
  std::vector<cudnnBackendNumericalNote_t> notes;
  if (engine.tensor_core) notes.push_back(CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
  if (!engine.deterministic) notes.push_back(CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC);
  if (graph.convolution)
    for (const auto note : configured_notes(graph.convolution->operation, engine.index))
      if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  return notes;
}

std::vector<cudnnBackendBehaviorNote_t> behavior_notes(const BackendGraph& graph,
                                                       const BackendEngine& engine) {
  if (!graph.convolution) return {};
  const auto names = configured_note_names(graph.convolution->operation, engine.index);
  if (std::find(names.begin(), names.end(), "runtime_compiled") == names.end()) return {};
  return {CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION};
}

std::optional<BackendEngine> engine_of(const BackendGraph& graph, std::int64_t index,
                                       std::int64_t split) {
  if (!graph.runnable || !graph.convolution || index < 0 || index >= graph.engine_count)
    return std::nullopt;
  const BackendConvolution& c = *graph.convolution;
  const KernelOrStatus k = kernel_from_descriptors(c.operation, &c.x, &c.w, &c.conv, &c.y);
  if (k.status != CUDNN_STATUS_SUCCESS) return std::nullopt;
  const int algorithm = graph.epilogue.empty() ? static_cast<int>(index) : kFusedAlgorithm;
  const bool knobs = graph.epilogue.empty() && has_knobs(c.operation, algorithm);
  if (split != 1 && (!knobs || (c.beta != 0 && split_k_without_beta()))) return std::nullopt;
  const Modeled m = model_engine(k.kernel, algorithm, split);
  if (!m.supported) return std::nullopt;
  const AlgorithmModel* a = algorithm_model(c.operation, algorithm);
  return BackendEngine{index,
                       algorithm,
                       a->deterministic,
                       a->family == Family::kWinogradNonfused,
                       m.workspace_bytes,
                       m.time_ms,
                       knobs,
                       split};
}

std::vector<BackendEngine> runnable_engines(const BackendGraph& graph, bool every_split) {
  std::vector<BackendEngine> engines;
  for (std::int64_t i = 0; i < graph.engine_count; ++i)
    for (const std::int64_t split : kSplits)
      if (split == 1 || every_split)
        if (auto engine = engine_of(graph, i, split)) engines.push_back(*engine);
  std::stable_sort(engines.begin(), engines.end(),
                   [](const auto& a, const auto& b) { return a.time_ms < b.time_ms; });
  return engines;
}

namespace {

// FAKECUDA_HIDDEN_ENGINES=i,j,...: engines no heuristics mode returns, as cuDNN's heuristics
// leave out some engines an application may still build by index (read once).
bool hidden_from_heuristics(std::int64_t index) {
  static const std::vector<std::int64_t> hidden = [] {
    std::vector<std::int64_t> indexes;
    const char* text = std::getenv("FAKECUDA_HIDDEN_ENGINES");
    for (const char* p = text; p && *p;) {
      char* end = nullptr;
      const long long value = std::strtoll(p, &end, 10);
      if (end == p) break;
      indexes.push_back(value);
      p = *end == ',' ? end + 1 : end;
    }
    return indexes;
  }();
  return std::find(hidden.begin(), hidden.end(), index) != hidden.end();
}

// Read at each query: one test sets it.
bool fastest_split_only() {
  const char* value = std::getenv("FAKECUDA_HEURISTICS_FASTEST_SPLIT");
  return value && std::strcmp(value, "1") == 0;
}

template <typename T>
BackendAttribute scalar(cudnnBackendAttributeType_t type, T value) {
  BackendAttribute a;
  a.type = type;
  a.count = 1;
  a.bytes.resize(sizeof value);
  std::memcpy(a.bytes.data(), &value, sizeof value);
  return a;
}

Snapshot knob_info(std::int64_t type, std::int64_t minimum, std::int64_t maximum) {
  auto info = std::make_shared<BackendDescriptor>();
  info->type = CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR;
  info->attributes[CUDNN_ATTR_KNOB_INFO_TYPE] =
      scalar(CUDNN_TYPE_KNOB_TYPE, static_cast<cudnnBackendKnobType_t>(type));
  info->attributes[CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE] = scalar(CUDNN_TYPE_INT64, minimum);
  info->attributes[CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE] = scalar(CUDNN_TYPE_INT64, maximum);
  info->attributes[CUDNN_ATTR_KNOB_INFO_STRIDE] = scalar(CUDNN_TYPE_INT64, std::int64_t{1});
  info->finalized = true;
  return info;
}

}  // namespace

std::vector<BackendEngine> heuristic_engines(const BackendGraph& graph,
                                             cudnnBackendHeurMode_t mode) {
  const bool fastest_split = fastest_split_only();
  auto engines = runnable_engines(graph, mode == CUDNN_HEUR_MODE_B || fastest_split);
  if (fastest_split) {
    const std::int64_t most = *std::max_element(std::begin(kSplits), std::end(kSplits));
    std::erase_if(engines, [&](const BackendEngine& e) {
      return e.knobs && e.split != most && engine_of(graph, e.index, most).has_value();
    });
  }
  if (mode == CUDNN_HEUR_MODE_FALLBACK)
    std::erase_if(engines, [](const BackendEngine& e) { return e.index != 0; });
  std::erase_if(engines, [](const BackendEngine& e) { return hidden_from_heuristics(e.index); });
  return engines;
}

std::vector<Snapshot> knob_infos(const BackendEngine& engine) {
  if (!engine.knobs) return {};
  const std::int64_t most = *std::max_element(std::begin(kSplits), std::end(kSplits));
  return {knob_info(kTileKnob, 0, 0), knob_info(kSplitKnob, 1, most)};
}

}  // namespace ucudnn::fakecuda
