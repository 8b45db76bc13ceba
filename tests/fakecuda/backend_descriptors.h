#pragma once
// The cuDNN double's graph (backend) API objects. A descriptor keeps every attribute set on it
// as typed bytes, as cuDNN's own validate only at Finalize; what Finalize derives (a
// convolution's problem, a graph's pattern, an engine's algorithm) is kept beside. A
// descriptor set as another's attribute is copied there, as cuDNN copies it: the application
// may destroy its own after setting it. backend_differential_test.cc compares the checks with
// the real library's.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/kernel_key.h"
#include "descriptors.h"

namespace ucudnn::fakecuda {

struct BackendDescriptor;
using Snapshot = std::shared_ptr<const BackendDescriptor>;

struct BackendAttribute {
  cudnnBackendAttributeType_t type = CUDNN_TYPE_INT64;
  std::int64_t count = 0;
  std::vector<std::byte> bytes;       // count elements of the type's size
  std::vector<Snapshot> descriptors;  // CUDNN_TYPE_BACKEND_DESCRIPTOR: copies, in order
};

// What a finalized convolution operation computes, in the legacy API's terms, so that the
// double runs it with the legacy convolution (convolution_calls.h).
struct BackendConvolution {
  Operation operation = Operation::kForward;
  cudnnTensorStruct x, y;  // x is dx for BackwardData, y is dy for both backward operations
  cudnnFilterStruct w;     // dw for BackwardFilter
  cudnnConvolutionStruct conv;
  std::int64_t x_uid = 0, w_uid = 0, y_uid = 0;
  bool x_virtual = false, y_virtual = false;
  double alpha = 1, beta = 0;
};

// A finalized pointwise operation: y = op(x[, b]); b broadcast over y's shape.
struct BackendPointwise {
  cudnnPointwiseMode_t mode = CUDNN_POINTWISE_ADD;
  std::int64_t x_uid = 0, b_uid = 0, y_uid = 0;
  bool has_b = false, x_virtual = false, b_virtual = false, y_virtual = false;
  cudnnTensorStruct x, b, y;
  double alpha1 = 1, alpha2 = 1;
};

// The graphs the double's engines run: one convolution, or a forward convolution whose output
// flows through pointwise operations on virtual tensors (an epilogue).
struct BackendGraph {
  std::optional<BackendConvolution> convolution;
  std::vector<BackendPointwise> epilogue;
  bool runnable = false;  // one of the two patterns
  std::int64_t engine_count = 0;
};

// One engine of a graph: for a lone convolution, the legacy algorithm of the same index; for a
// convolution with an epilogue, engine 0 (IMPLICIT_PRECOMP_GEMM and the epilogue).
struct BackendEngine {
  std::int64_t index = 0;
  int algorithm = 0;
  bool deterministic = true;
  bool tensor_core = false;  // the NONFUSED Winograd engines say TENSOR_CORE (a model choice)
  std::uint64_t workspace_bytes = 0;
  double time_ms = 0;
  bool knobs = false;      // takes the tile and split-K knobs (cost_model.h)
  std::int64_t split = 1;  // the split-K knob's value
};

struct BackendDescriptor {
  Tag tag = Tag::kBackend;
  cudnnBackendDescriptorType_t type = CUDNN_BACKEND_TENSOR_DESCRIPTOR;
  bool finalized = false;
  std::map<cudnnBackendAttributeName_t, BackendAttribute> attributes;
  // Derived at Finalize, by type.
  std::optional<BackendConvolution> convolution;  // convolution operations
  std::optional<BackendPointwise> pointwise;      // pointwise operations
  std::shared_ptr<const BackendGraph> graph;      // graphs, engines, configurations, plans
  std::optional<BackendEngine> engine;            // engines, configurations, plans

  const BackendAttribute* find(cudnnBackendAttributeName_t name) const {
    auto found = attributes.find(name);
    return found == attributes.end() ? nullptr : &found->second;
  }
};

inline BackendDescriptor* backend(cudnnBackendDescriptor_t d) {
  auto* descriptor = static_cast<BackendDescriptor*>(d);
  return descriptor && descriptor->tag == Tag::kBackend ? descriptor : nullptr;
}

// The attribute's scalar value, or `otherwise` when it is unset.
template <typename T>
T scalar_attribute(const BackendDescriptor& d, cudnnBackendAttributeName_t name, T otherwise) {
  const BackendAttribute* a = d.find(name);
  if (!a || a->count < 1 || a->bytes.size() < sizeof(T)) return otherwise;
  T value;
  std::memcpy(&value, a->bytes.data(), sizeof(T));
  return value;
}

template <typename T>
std::vector<T> array_attribute(const BackendDescriptor& d, cudnnBackendAttributeName_t name) {
  const BackendAttribute* a = d.find(name);
  std::vector<T> values;
  if (!a) return values;
  values.resize(static_cast<std::size_t>(a->count));
  if (!values.empty()) std::memcpy(values.data(), a->bytes.data(), values.size() * sizeof(T));
  return values;
}

// The descriptor an attribute holds (the first), or null.
inline const BackendDescriptor* descriptor_attribute(const BackendDescriptor& d,
                                                     cudnnBackendAttributeName_t name) {
  const BackendAttribute* a = d.find(name);
  return a && !a->descriptors.empty() ? a->descriptors.front().get() : nullptr;
}

// Finalize's checks and derivations for each descriptor type (backend_finalize.cc).
cudnnStatus_t finalize_backend(BackendDescriptor& d);

// The engines of a finalized graph, fastest first (backend_engines.cc): each with its knobs'
// defaults, or (`every_split`) with every split-K value it takes, as heuristics mode B offers.
std::vector<BackendEngine> runnable_engines(const BackendGraph& graph, bool every_split = false);
std::optional<BackendEngine> engine_of(const BackendGraph& graph, std::int64_t index,
                                       std::int64_t split = 1);
// The engines a heuristics mode offers, fastest first: mode A, every runnable engine with its
// knobs' defaults; mode B, also every split-K value; the fallback list, engine 0 alone; never a
// hidden engine (FAKECUDA_HIDDEN_ENGINES=i,j,...). Under FAKECUDA_HEURISTICS_FASTEST_SPLIT=1
// a knob engine comes in every mode with its fastest split alone (the most workspace), as
// heuristics that choose knobs for speed, with no thought of a limit.
std::vector<BackendEngine> heuristic_engines(const BackendGraph& graph,
                                             cudnnBackendHeurMode_t mode);
// An engine's knob ranges (CUDNN_ATTR_ENGINE_KNOB_INFO), finalized knob info descriptors: a
// knob engine's tile (0 to 0) and split-K buffers (1 to 4 on stride 1; Finalize refuses 3);
// none for the others.
std::vector<Snapshot> knob_infos(const BackendEngine& engine);
// An engine's numerical notes: its model's (TENSOR_CORE, NONDETERMINISTIC) and any that
// FAKECUDA_ENGINE_NOTES gives it.
std::vector<cudnnBackendNumericalNote_t> numerical_notes(const BackendGraph& graph,
                                                         const BackendEngine& engine);
// An engine's behavior notes: RUNTIME_COMPILATION where FAKECUDA_ENGINE_NOTES gives it
// "runtime_compiled" (its execution plans' Finalize then charges the compile cost, host_cost.h).
std::vector<cudnnBackendBehaviorNote_t> behavior_notes(const BackendGraph& graph,
                                                       const BackendEngine& engine);

}  // namespace ucudnn::fakecuda
