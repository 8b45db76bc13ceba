// The cuDNN double's graph (backend) API: descriptors whose attributes are checked as cuDNN 9.19
// checks them (backend_attributes.cc, backend_finalize.cc; compared with the real library by
// backend_differential_test.cc), heuristics that rank the double's engines by modeled time
// (backend_engines.cc), execution plans, variant packs, and cudnnBackendExecute, which runs a
// lone convolution as the legacy convolution of the engine's algorithm and a forward
// convolution with an epilogue as one fused kernel (backend_execution.h). Trace lines
// (README.md):
//   backend-finalize plan engine=<i> algo=<NAME> workspace=<bytes>
//   backend-populate|backend-update engine=<i> workspace=<the engine's> (no native CUDA graphs:
//                   NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API)
#include <cudnn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <string>

#include "backend_attributes.h"
#include "backend_descriptors.h"
#include "backend_execution.h"
#include "convolution_calls.h"
#include "cudnn_session.h"
#include "device_fault.h"
#include "fakecuda_hooks.h"
#include "guarded_call.h"
#include "host_cost.h"
#include "reference.h"
#include "stream_work.h"
#include "tensor_ops.h"
#include "trace.h"

using namespace ucudnn;
using namespace ucudnn::fakecuda;

namespace {

bool scaling_attribute(cudnnBackendAttributeName_t name) {
  switch (name) {
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA:
      return true;
    default:
      return false;
  }
}

// A set attribute's element type that is not the attribute's: cuDNN's answer depends on the
// attribute (measured on cuDNN 9.19).
cudnnStatus_t wrong_type(cudnnBackendDescriptorType_t owner, cudnnBackendAttributeName_t name) {
  if (owner == CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR ||
      name == CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA ||
      name == CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA)
    return CUDNN_STATUS_NOT_SUPPORTED;
  if (scaling_attribute(name) || owner == CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR)
    return CUDNN_STATUS_BAD_PARAM;
  return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
}

cudnnStatus_t set_attribute(BackendDescriptor& d, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, int64_t count, const void* values) {
  if (d.finalized) return CUDNN_STATUS_BAD_PARAM;
  const AttributeSpec* spec = attribute_spec(d.type, name);
  if (!spec) return CUDNN_STATUS_BAD_PARAM;
  if (type != spec->type && type != spec->other_type) return wrong_type(d.type, name);
  const bool graph_ops = name == CUDNN_ATTR_OPERATIONGRAPH_OPS;
  if (!(graph_ops && count == 0)) {
    if (!values || count < 1 || (!spec->array && count != 1)) return CUDNN_STATUS_BAD_PARAM;
  }
  BackendAttribute a;
  a.type = type;
  a.count = count;
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    const auto* handles = static_cast<const cudnnBackendDescriptor_t*>(values);
    for (int64_t i = 0; i < count; ++i) {
      const BackendDescriptor* referenced = backend(handles[i]);
      if (!referenced) return CUDNN_STATUS_BAD_PARAM;
      if (graph_ops && !referenced->finalized) {
        // cuDNN keeps the operations before the one it refuses.
        a.count = static_cast<int64_t>(a.descriptors.size());
        a.bytes.resize(static_cast<std::size_t>(a.count) * 8);
        d.attributes[name] = std::move(a);
        return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
      }
      a.descriptors.push_back(std::make_shared<const BackendDescriptor>(*referenced));
    }
  }
  const std::size_t bytes = static_cast<std::size_t>(count) * attribute_element_size(type);
  a.bytes.resize(bytes);
  if (bytes) std::memcpy(a.bytes.data(), values, bytes);
  d.attributes[name] = std::move(a);
  return CUDNN_STATUS_SUCCESS;
}

// The bytes an attribute reads back as: what was set, else cuDNN's default, else what the
// descriptor derived at Finalize. Empty: nothing to read (an unset attribute without default).
struct Readback {
  cudnnBackendAttributeType_t type;
  std::vector<std::byte> bytes;
  std::int64_t count = 0;
};

template <typename T>
Readback readback_of(cudnnBackendAttributeType_t type, std::vector<T> values) {
  Readback r{type, {}, static_cast<std::int64_t>(values.size())};
  r.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(r.bytes.data(), values.data(), r.bytes.size());
  return r;
}

std::optional<Readback> derived(const BackendDescriptor& d, cudnnBackendAttributeName_t name) {
  switch (name) {
    case CUDNN_ATTR_TENSOR_IS_VIRTUAL:
    case CUDNN_ATTR_TENSOR_IS_BY_VALUE:
      return readback_of<char>(CUDNN_TYPE_BOOLEAN, {0});
    case CUDNN_ATTR_TENSOR_VECTOR_COUNT:
      return readback_of<std::int64_t>(CUDNN_TYPE_INT64, {1});
    case CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION:
    case CUDNN_ATTR_TENSOR_UNIQUE_ID:
      return readback_of<std::int64_t>(CUDNN_TYPE_INT64, {-1});
    case CUDNN_ATTR_TENSOR_DATA_TYPE:
      return readback_of<cudnnDataType_t>(CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA:
      return readback_of<double>(CUDNN_TYPE_DOUBLE, {1.0});
    case CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA:
    case CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA:
      return readback_of<double>(CUDNN_TYPE_DOUBLE, {0.0});
    case CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS:
    case CUDNN_ATTR_CONVOLUTION_POST_PADDINGS:
      return readback_of<std::int64_t>(
          CUDNN_TYPE_INT64,
          std::vector<std::int64_t>(static_cast<std::size_t>(scalar_attribute<std::int64_t>(
                                        d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 0)),
                                    0));
    case CUDNN_ATTR_CONVOLUTION_COMP_TYPE:
      return readback_of<cudnnDataType_t>(CUDNN_TYPE_DATA_TYPE, {CUDNN_DATA_FLOAT});
    case CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT:
      return readback_of<std::int64_t>(CUDNN_TYPE_INT64, {d.graph ? d.graph->engine_count : 0});
    case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE:
      return readback_of(CUDNN_TYPE_NUMERICAL_NOTE,
                         d.engine && d.graph ? numerical_notes(*d.graph, *d.engine)
                                             : std::vector<cudnnBackendNumericalNote_t>{});
    case CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE:
      return readback_of(CUDNN_TYPE_BEHAVIOR_NOTE, d.engine && d.graph
                                                       ? behavior_notes(*d.graph, *d.engine)
                                                       : std::vector<cudnnBackendBehaviorNote_t>{});
    case CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE:
    case CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE:
      return readback_of<std::int64_t>(
          CUDNN_TYPE_INT64, {d.engine ? static_cast<std::int64_t>(d.engine->workspace_bytes) : 0});
    default:
      return std::nullopt;
  }
}

// Descriptors read back are copied into the ones the application created for them.
cudnnStatus_t read_descriptors(const std::vector<Snapshot>& from, int64_t requested, int64_t* count,
                               void* array) {
  const auto n = static_cast<int64_t>(from.size());
  if (!array) {
    if (count) *count = n;
    return CUDNN_STATUS_SUCCESS;
  }
  const int64_t written = std::min(std::max<int64_t>(requested, 0), n);
  auto* targets = static_cast<cudnnBackendDescriptor_t*>(array);
  for (int64_t i = 0; i < written; ++i) {
    BackendDescriptor* target = backend(targets[i]);
    if (!target || target->type != from[static_cast<std::size_t>(i)]->type)
      return CUDNN_STATUS_BAD_PARAM;
    *target = *from[static_cast<std::size_t>(i)];
  }
  if (count) *count = written;
  return CUDNN_STATUS_SUCCESS;
}

// A finalized knob choice.
Snapshot knob_choice(std::int64_t type, std::int64_t value) {
  auto choice = std::make_shared<BackendDescriptor>();
  choice->type = CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR;
  const auto knob = static_cast<cudnnBackendKnobType_t>(type);
  set_attribute(*choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_TYPE_KNOB_TYPE, 1, &knob);
  set_attribute(*choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, CUDNN_TYPE_INT64, 1, &value);
  choice->finalized = true;
  return choice;
}

// The heuristics' configurations (heuristic_engines), each a finalized engine configuration
// with its engine and its knob choices.
std::vector<Snapshot> heuristic_results(const BackendDescriptor& heuristics) {
  std::vector<Snapshot> results;
  if (!heuristics.graph) return results;
  const auto mode = scalar_attribute<cudnnBackendHeurMode_t>(heuristics, CUDNN_ATTR_ENGINEHEUR_MODE,
                                                             CUDNN_HEUR_MODE_A);
  for (const BackendEngine& e : heuristic_engines(*heuristics.graph, mode)) {
    auto engine = std::make_shared<BackendDescriptor>();
    engine->type = CUDNN_BACKEND_ENGINE_DESCRIPTOR;
    engine->graph = heuristics.graph;
    engine->engine = engine_of(*heuristics.graph, e.index);
    const std::int64_t index = e.index;
    set_attribute(*engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &index);
    engine->finalized = true;
    auto configuration = std::make_shared<BackendDescriptor>();
    configuration->type = CUDNN_BACKEND_ENGINECFG_DESCRIPTOR;
    configuration->graph = heuristics.graph;
    configuration->engine = e;
    BackendAttribute a;
    a.type = CUDNN_TYPE_BACKEND_DESCRIPTOR;
    a.count = 1;
    a.bytes.resize(8);
    a.descriptors.push_back(engine);
    configuration->attributes[CUDNN_ATTR_ENGINECFG_ENGINE] = std::move(a);
    if (e.knobs) {
      BackendAttribute choices;
      choices.type = CUDNN_TYPE_BACKEND_DESCRIPTOR;
      choices.count = 2;
      choices.bytes.resize(16);
      choices.descriptors = {knob_choice(kTileKnob, 0), knob_choice(kSplitKnob, e.split)};
      configuration->attributes[CUDNN_ATTR_ENGINECFG_KNOB_CHOICES] = std::move(choices);
    }
    configuration->finalized = true;
    results.push_back(configuration);
  }
  return results;
}

// Like a cuDNN before 9.2, which has no CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE (read at each call:
// one test sets it).
bool configuration_workspace_unanswered() {
  const char* value = std::getenv("FAKECUDA_CONFIGURATION_WORKSPACE_UNANSWERED");
  return value && std::strcmp(value, "1") == 0;
}

cudnnStatus_t get_attribute(const BackendDescriptor& d, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, int64_t requested, int64_t* count,
                            void* array) {
  if (!d.finalized) return CUDNN_STATUS_NOT_INITIALIZED;
  const AttributeSpec* spec = attribute_spec(d.type, name);
  if (!spec ||
      (name == CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE && configuration_workspace_unanswered()))
    return CUDNN_STATUS_BAD_PARAM;
  if (!spec->readable) return CUDNN_STATUS_NOT_SUPPORTED;
  // cuDNN 9.19 reads no convolution mode back, whatever the type asked for.
  if (name == CUDNN_ATTR_CONVOLUTION_CONV_MODE) return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  if (type != spec->type && type != spec->other_type) return CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE;
  if (name == CUDNN_ATTR_ENGINEHEUR_RESULTS)
    return read_descriptors(heuristic_results(d), requested, count, array);
  if (name == CUDNN_ATTR_ENGINE_KNOB_INFO) {
    // Traced: cuDNN builds a descriptor per knob type to answer, which a caller should not ask
    // for where it will not use them.
    trace_line("backend-knob-info engine=%lld",
               d.engine ? static_cast<long long>(d.engine->index) : -1LL);
    return read_descriptors(d.engine ? knob_infos(*d.engine) : std::vector<Snapshot>{}, requested,
                            count, array);
  }
  if (type == CUDNN_TYPE_BACKEND_DESCRIPTOR) {
    // cuDNN counts no descriptors without a place for them (and says so differently).
    if (!array)
      return d.type == CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR
                 ? CUDNN_STATUS_NOT_INITIALIZED
                 : CUDNN_STATUS_BAD_PARAM;
    const BackendAttribute* a = d.find(name);
    return read_descriptors(a ? a->descriptors : std::vector<Snapshot>{}, requested, count, array);
  }
  Readback r;
  if (const BackendAttribute* a = d.find(name))
    r = {a->type, a->bytes, a->count};
  else if (auto value = derived(d, name))
    r = std::move(*value);
  else
    return CUDNN_STATUS_BAD_PARAM;
  // A scaling factor reads back only as the type it was set with.
  if (r.type != type) return CUDNN_STATUS_BAD_PARAM;
  if (!array) {
    if (count) *count = r.count;
    return CUDNN_STATUS_SUCCESS;
  }
  const int64_t written = std::min(std::max<int64_t>(requested, 0), r.count);
  if (written > 0)
    std::memcpy(array, r.bytes.data(),
                static_cast<std::size_t>(written) * attribute_element_size(r.type));
  if (count) *count = written;
  return CUDNN_STATUS_SUCCESS;
}

// No engine of the double has native CUDA graphs; the trace says which plan was asked, so that
// tests see what would have gone into a graph.
cudnnStatus_t native_cuda_graph(const char* call, cudnnBackendDescriptor_t executionPlan) {
  const BackendDescriptor* plan = backend(executionPlan);
  trace_line(
      "backend-%s engine=%lld workspace=%llu", call,
      plan && plan->engine ? static_cast<long long>(plan->engine->index) : -1LL,
      plan && plan->engine ? static_cast<unsigned long long>(plan->engine->workspace_bytes) : 0ULL);
  return CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API;
}

}  // namespace

extern "C" {

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                           cudnnBackendDescriptor_t* descriptor) {
  return guarded(__func__, [&] {
    if (!descriptor) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (descriptorType < CUDNN_BACKEND_POINTWISE_DESCRIPTOR ||
        descriptorType > CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR)
      return CUDNN_STATUS_BAD_PARAM;
    auto* d = new BackendDescriptor;
    d->type = descriptorType;
    *descriptor = d;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  if (!descriptor) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  BackendDescriptor* d = backend(descriptor);
  if (!d) return CUDNN_STATUS_BAD_PARAM;
  d->tag = Tag::kDead;
  delete d;
  return CUDNN_STATUS_SUCCESS;
}

// cuDNN 9.19 empties any descriptor it made, finalized or not, and keeps its type: what was
// set must be set again and finalized again (probed: reads then answer NOT_INITIALIZED).
cudnnStatus_t cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor) {
  return guarded(__func__, [&] {
    if (!descriptor) return CUDNN_STATUS_BAD_PARAM;
    BackendDescriptor* d = backend(descriptor);
    if (!d) return CUDNN_STATUS_BAD_PARAM;
    const cudnnBackendDescriptorType_t type = d->type;
    *d = BackendDescriptor{};
    d->type = type;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                       cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType,
                                       int64_t elementCount, const void* arrayOfElements) {
  return guarded(__func__, [&] {
    if (!descriptor) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    BackendDescriptor* d = backend(descriptor);
    if (!d) return CUDNN_STATUS_BAD_PARAM;
    return set_attribute(*d, attributeName, attributeType, elementCount, arrayOfElements);
  });
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                       cudnnBackendAttributeName_t attributeName,
                                       cudnnBackendAttributeType_t attributeType,
                                       int64_t requestedElementCount, int64_t* elementCount,
                                       void* arrayOfElements) {
  return guarded(__func__, [&] {
    const BackendDescriptor* d = backend(descriptor);
    if (!d) return CUDNN_STATUS_BAD_PARAM;
    return get_attribute(*d, attributeName, attributeType, requestedElementCount, elementCount,
                         arrayOfElements);
  });
}

cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  return guarded(__func__, [&] {
    if (!descriptor) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    BackendDescriptor* d = backend(descriptor);
    if (!d || d->finalized) return CUDNN_STATUS_BAD_PARAM;
    const cudnnStatus_t status = finalize_backend(*d);
    if (status == CUDNN_STATUS_SUCCESS) {
      d->finalized = true;
      if (d->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR && d->engine)
        trace_line(
            "backend-finalize plan engine=%lld algo=%s workspace=%llu",
            static_cast<long long>(d->engine->index),
            algorithm_model(d->graph->convolution->operation, d->engine->algorithm)->name.data(),
            static_cast<unsigned long long>(d->engine->workspace_bytes));
    }
    return status;
  });
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
                                  cudnnBackendDescriptor_t variantPack) {
  const char* function = __func__;
  charge_host_cost(HostCost::kPlanExecution);
  count_toward_device_fault();
  return guarded(function, [&] {
    const BackendDescriptor* plan = backend(executionPlan);
    const BackendDescriptor* pack = backend(variantPack);
    if (!alive(handle) || !plan || !pack)
      return fail(CUDNN_STATUS_BAD_PARAM, function, "a null or destroyed argument");
    if (plan->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR ||
        pack->type != CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR || !plan->finalized || !pack->finalized)
      return fail(CUDNN_STATUS_BAD_PARAM, function,
                  "not a finalized execution plan and variant pack");
    if (!plan->graph || !plan->engine)
      return fail(CUDNN_STATUS_BAD_PARAM, function, "the plan has no engine");
    const cudnnStatus_t status = execute_convolution(handle, *plan->graph, *plan->engine, *pack);
    // FAKECUDA_EXECUTE_SYNCHRONIZES=1: each execution waits for its stream before it returns, as
    // a real one may where CUDA loads its kernels then (lazy loading can synchronize).
    const char* synchronizes = std::getenv("FAKECUDA_EXECUTE_SYNCHRONIZES");
    if (status == CUDNN_STATUS_SUCCESS && synchronizes && std::strcmp(synchronizes, "1") == 0)
      cudaStreamSynchronize(handle->stream);
    return status;
  });
}

cudnnStatus_t cudnnBackendPopulateCudaGraph(cudnnHandle_t, cudnnBackendDescriptor_t executionPlan,
                                            cudnnBackendDescriptor_t, cudaGraph_t) {
  return native_cuda_graph("populate", executionPlan);
}

cudnnStatus_t cudnnBackendUpdateCudaGraph(cudnnHandle_t, cudnnBackendDescriptor_t executionPlan,
                                          cudnnBackendDescriptor_t, cudaGraph_t) {
  return native_cuda_graph("update", executionPlan);
}

}  // extern "C"
