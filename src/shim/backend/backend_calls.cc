#include "shim/backend/backend_calls.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>

#include "cudnn/algorithms.h"
#include "cudnn/backend_api.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_types.h"
#include "cudnn/engine_configurations.h"
#include "shim/backend/application_numerics.h"
#include "shim/backend/application_plan.h"
#include "shim/backend/graph_convolution.h"
#include "shim/backend/plan_promise.h"
#include "shim/backend/promise_lookup.h"
#include "shim/backend/thread_variant_packs.h"
#include "shim/dispatch.h"
#include "shim/dispatch/planning.h"
#include "shim/log.h"
#include "shim/memory_to_spare.h"
#include "shim/registry.h"
#include "shim/settings.h"
#include "shim/stream_state.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim::backend {

namespace {

const cudnn::BackendApi& api() {
  return cudnn::backend_api();
}

// The calls reach cuDNN whatever ucudnn's state; a library without the function gets
// NOT_INITIALIZED, as any call into a cuDNN ucudnn could not load.
template <typename Function, typename... Arguments>
cudnnStatus_t call(Function function, Arguments... arguments) {
  return function ? function(arguments...) : CUDNN_STATUS_NOT_INITIALIZED;
}

bool watching() {
  return !process_settings().disabled;
}

DescriptorTable& table() {
  return Registry::instance().backend_descriptors();
}

// cuDNN's own libraries calling through the dynamic linker (none in 9.19): never planned.
bool called_by_cudnn(const void* caller) {
  Dl_info info;
  if (!caller || !dladdr(caller, &info) || !info.dli_fname) return false;
  const char* name = std::strrchr(info.dli_fname, '/');
  name = name ? name + 1 : info.dli_fname;
  return std::strncmp(name, "libcudnn", 8) == 0;
}

std::int64_t engine_workspace(cudnnBackendDescriptor_t plan) {
  std::int64_t bytes = 0, count = 0;
  if (cudnn::get_attribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
                           &count, &bytes) != CUDNN_STATUS_SUCCESS)
    return -1;
  return bytes;
}

// The workspace limit set for `handle` (UCUDNN_WORKSPACE_LIMIT or the handle's option), if any:
// a graph API application states no workspace of its own.
std::optional<std::uint64_t> configured_limit(cudnnHandle_t handle) {
  auto state = Registry::instance().state(handle);
  std::lock_guard lock(state->mutex);
  return state->workspace_limit(process_settings());
}

// Plans a finalized execution plan's convolution, if ucudnn can run it; else leaves it to cuDNN.
void plan(cudnnBackendDescriptor_t plan_descriptor) {
  std::optional<Expected<GraphConvolution>> read;
  table().read(plan_descriptor, [&](const Record* record) {
    if (record && record->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR)
      read = plan_convolution(*record);
  });
  if (!read) return;
  if (!*read) {
    log(LogLevel::kDebug, "graph API plan passed through: " + read->error());
    return;
  }
  GraphConvolution c = std::move(read->value());
  if (!c.handle) {
    warn_once("backend-no-handle",
              "a graph API execution plan names no cuDNN handle (EXECUTION_PLAN_HANDLE): ucudnn "
              "cannot plan it at Finalize and leaves it to cuDNN");
    return;
  }
  // Nothing is measured or allocated while the application captures a CUDA graph.
  if (capturing(stream_of(c.handle))) return;
  const std::int64_t engine_bytes = engine_workspace(plan_descriptor);
  if (engine_bytes < 0) return;
  const cudnn::PlanEngine application = cudnn::plan_engine(plan_descriptor);
  const ApplicationNumerics allowed = numerics_allowed_by(application.notes);
  c.problem.math_type = allowed.math;
  const bool deterministic_only = allowed.deterministic_only;
  auto& registry = Registry::instance();
  const int device = registry.state(c.handle)->device;
  if (application.name) {
    // What the application would have run is a candidate, whatever the heuristics offer.
    registry.device(device).application_engines.add(
        KernelKey{c.operation, c.problem}.to_string(),
        {*application.name, application.notes, static_cast<std::uint64_t>(engine_bytes)});
  }
  std::shared_ptr<PlanPromise> promise;
  try {
    promise = std::make_shared<PlanPromise>(cudnn::cudnn_api(), c.problem);
  } catch (const std::exception& error) {
    log(LogLevel::kDebug, std::string("graph API plan passed through: ") + error.what());
    return;
  }
  promise->operation = c.operation;
  promise->x_uid = c.x_uid;
  promise->w_uid = c.w_uid;
  promise->y_uid = c.y_uid;
  promise->double_scaling = c.problem.data_type == DataType::kDouble;
  promise->alpha_double = c.alpha;
  promise->beta_double = c.beta;
  promise->alpha_float = static_cast<float>(c.alpha);
  promise->beta_float = static_cast<float>(c.beta);
  promise->scope = PlanScope{kNoLayer, deterministic_only};
  promise->scope.math = allowed.math;
  promise->claim = c.claim;
  promise->plan = plan_descriptor;
  // An engine over the limit the user set is no candidate: the application is told what
  // ucudnn's plan within the limit needs (a WR plan; WD's arena is ucudnn's own). Where the
  // user set none, ucudnn's plan may need more than the engine (up to the default limit) only
  // while the device has memory to spare: under memory pressure the engine's workspace is what
  // the application has shown it can give, frameworks passing over the engines whose workspace
  // they cannot allocate, and a plan that needs more would leave it none to run.
  const auto limit = configured_limit(c.handle);
  const bool over_limit = limit && static_cast<std::uint64_t>(engine_bytes) > *limit;
  std::optional<std::uint64_t> at_most;
  if (!limit && !memory_to_spare(device, kDefaultWorkspaceLimit))
    at_most = static_cast<std::uint64_t>(engine_bytes);
  std::shared_ptr<cudnn::PlanExecutor> executor;
  const auto planned =
      planned_result(c.operation, cudnn::Selection::kFind, c.handle, promise->descriptors(), {},
                     nullptr, 0, promise->scope, &executor, at_most);
  if (!planned || planned->algorithm != cudnn::virtual_algorithm(c.operation)) return;
  // An engine the user excluded (UCUDNN_EXCLUDE_ALGORITHMS: it misbehaves on this library) is
  // no more the application's to run than one over the limit: ucudnn's plan always runs.
  const bool excluded = application.name && process_settings().excluded.excludes(
                                                "cudnn", application.name->to_string());
  const bool capped =
      executor && ((over_limit && executor->workspace_bytes() <= *limit) || excluded);
  // Otherwise the application's own plan is a candidate too: ucudnn runs its plan only where
  // that is clearly faster, so that no kernel ever runs slower.
  if (!capped && executor && process_settings().compare_application_plans &&
      application_plan_wins(plan_descriptor, c, *executor, deterministic_only,
                            static_cast<std::uint64_t>(engine_bytes)))
    return;
  // The plan's scalars are known now: the execution plans they need are made with it.
  if (executor) executor->prepare_scalars(c.handle, promise->alpha(), promise->beta());
  promise->executor = std::move(executor);
  promise->engine_workspace_bytes = static_cast<std::uint64_t>(engine_bytes);
  promise->capped = capped;
  // Uncapped, at least the engine's own workspace, so that whatever runs cuDNN's engine instead
  // (a CUDA graph, a fallback) still fits what the application allocates.
  promise->workspace_bytes = capped ? promise->executor->workspace_bytes()
                                    : std::max(planned->memory, promise->engine_workspace_bytes);
  log(LogLevel::kInfo,
      std::string("graph API ") + std::string(name_of(c.operation)) +
          " plan runs ucudnn's micro-batches (" + (deterministic_only ? "deterministic, " : "") +
          "workspace " + format_byte_size(promise->workspace_bytes) +
          (!capped    ? std::string()
           : excluded ? ", its engine " + application.name->to_string() +
                            " being excluded by UCUDNN_EXCLUDE_ALGORITHMS"
                      : ", its engine's " + format_byte_size(promise->engine_workspace_bytes) +
                            " being over the limit " + format_byte_size(*limit)) +
          ")");
  auto claim = promise->claim;
  table().promise(plan_descriptor, std::move(promise), std::move(claim));
}

// A capped plan's execution with a pack ucudnn cannot read (attributes it does not record, more
// tensors than it keeps, or one it lost track of): ucudnn does not know the pointers, and cuDNN's
// engine would overrun the workspace the application holds. It fails, as a plan cuDNN cannot run
// does (frameworks then try their next plan).
cudnnStatus_t unreadable_pack(const PlanPromise& promise) {
  warn_once(
      "backend-capped-unreadable-pack",
      "a variant pack ucudnn cannot read (with attributes beside its tensors' ids, "
      "pointers and workspace, or more than " +
          std::to_string(VariantPack::kMaxTensors) +
          " tensors) reached a graph API plan whose engine needs " +
          format_byte_size(promise.engine_workspace_bytes) +
          ", over the workspace limit (or an engine excluded), where the application was told " +
          format_byte_size(promise.workspace_bytes) +
          ": the execution fails with CUDNN_STATUS_NOT_SUPPORTED (set only the pack's "
          "tensors and workspace, or raise UCUDNN_WORKSPACE_LIMIT)");
  return CUDNN_STATUS_NOT_SUPPORTED;
}

// Whether cuDNN's engine of `plan` may overrun the workspace the application holds for it (a
// capped plan): then cuDNN must not record it into a CUDA graph either, and the application is
// told so as cuDNN tells it of engines without native CUDA graphs (it then captures the stream
// instead, where ucudnn's micro-batches run).
bool engine_overruns(cudnnBackendDescriptor_t plan) {
  if (!plan || !watching()) return false;
  try {
    const PlanPromise* promise = promise_for_execution(table(), plan);
    if (!promise) return false;
    if (promise->engine_may_run()) {
      // Recorded by cuDNN as it is: the plan was used, not passed over (graph_claim.h).
      if (promise->claim) promise->claim->ran(plan);
      return false;
    }
  } catch (const std::exception&) {
    return false;  // no memory to look the plan up: ucudnn made no promise it can find
  }
  warn_once("backend-capped-cuda-graph",
            "a graph API plan that ucudnn answered with less workspace than its engine needs "
            "(its engine is over the workspace limit, or excluded) cannot populate a CUDA graph "
            "natively: "
            "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API (stream capture runs ucudnn's plan)");
  return true;
}

}  // namespace

cudnnStatus_t create_descriptor(cudnnBackendDescriptorType_t type,
                                cudnnBackendDescriptor_t* descriptor) {
  const cudnnStatus_t status = call(api().cudnnBackendCreateDescriptor, type, descriptor);
  if (status == CUDNN_STATUS_SUCCESS && descriptor && *descriptor && watching()) {
    try {
      if (type == CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR)
        ThreadVariantPacks::created(*descriptor);
      else
        table().created(*descriptor, type);
    } catch (const std::exception&) {
      // Out of memory for the record: the descriptor's graphs pass through.
    }
  }
  return status;
}

cudnnStatus_t destroy_descriptor(cudnnBackendDescriptor_t descriptor) {
  // Forgotten first: once cuDNN frees it, the address may come back as another descriptor.
  if (descriptor && watching() && !ThreadVariantPacks::destroyed(descriptor) &&
      !table().destroyed(descriptor))
    ThreadVariantPacks::destroyed_elsewhere(descriptor);
  return call(api().cudnnBackendDestroyDescriptor, descriptor);
}

cudnnStatus_t initialize(cudnnBackendDescriptor_t descriptor) {
  const cudnnStatus_t status = call(api().cudnnBackendInitialize, descriptor);
  if (status == CUDNN_STATUS_SUCCESS && descriptor && watching() &&
      !ThreadVariantPacks::initialized(descriptor)) {
    try {
      if (!table().initialized(descriptor)) ThreadVariantPacks::initialized_elsewhere(descriptor);
    } catch (const std::exception&) {
      // A stale record must not be planned or run from.
      if (!table().destroyed(descriptor)) ThreadVariantPacks::destroyed_elsewhere(descriptor);
    }
  }
  return status;
}

cudnnStatus_t set_attribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, std::int64_t count,
                            const void* values) {
  const cudnnStatus_t status =
      call(api().cudnnBackendSetAttribute, descriptor, name, type, count, values);
  if (status == CUDNN_STATUS_SUCCESS && watching() &&
      !ThreadVariantPacks::set(descriptor, name, type, count, values)) {
    try {
      if (!table().set(descriptor, name, type, count, values))
        ThreadVariantPacks::set_elsewhere(descriptor, name, type, count, values);
    } catch (const std::exception&) {
      // An incomplete record must not be planned or run from.
      if (!table().destroyed(descriptor)) ThreadVariantPacks::destroyed_elsewhere(descriptor);
    }
  }
  return status;
}

cudnnStatus_t get_attribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, std::int64_t requested,
                            std::int64_t* count, void* values) {
  const cudnnStatus_t status =
      call(api().cudnnBackendGetAttribute, descriptor, name, type, requested, count, values);
  if (status != CUDNN_STATUS_SUCCESS || !watching()) return status;
  try {
    if (name == CUDNN_ATTR_ENGINEHEUR_RESULTS && type == CUDNN_TYPE_BACKEND_DESCRIPTOR && values &&
        count) {
      table().heuristics_results(descriptor, static_cast<const cudnnBackendDescriptor_t*>(values),
                                 std::min(*count, requested));
    } else if ((name == CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE ||
                name == CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE) &&
               type == CUDNN_TYPE_INT64 && values && requested >= 1) {
      if (auto promise = table().promise_of(descriptor); promise && promise->answers_workspace()) {
        *static_cast<std::int64_t*>(values) = static_cast<std::int64_t>(promise->workspace_bytes);
        promise->answered.store(true, std::memory_order_relaxed);
      }
    }
  } catch (const std::exception&) {
    // No memory to record what cuDNN answered: its answer stands.
  }
  return status;
}

cudnnStatus_t finalize(cudnnBackendDescriptor_t descriptor, const void* caller) {
  const cudnnStatus_t status = call(api().cudnnBackendFinalize, descriptor);
  if (status != CUDNN_STATUS_SUCCESS || !watching() || ThreadVariantPacks::finalized(descriptor))
    return status;
  if (!table().finalized(descriptor)) {
    ThreadVariantPacks::finalized_elsewhere(descriptor);
    return status;
  }
  bool execution_plan = false;
  table().read(descriptor, [&](const Record* record) {
    execution_plan = record && record->type == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR;
  });
  if (!execution_plan || called_by_cudnn(caller) || !cudnn::cudnn_api().complete() ||
      !cudnn::cuda_runtime().complete())
    return status;
  try {
    plan(descriptor);
  } catch (const std::exception& error) {
    warn_once("backend-plan-failed", std::string("planning a graph API execution plan failed (") +
                                         error.what() + "); cuDNN runs it");
  }
  return status;
}

cudnnStatus_t execute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan_descriptor,
                      cudnnBackendDescriptor_t variant_pack) {
  auto run_cudnn = [&] {
    return call(api().cudnnBackendExecute, handle, plan_descriptor, variant_pack);
  };
  if (!handle || !plan_descriptor || !variant_pack || !watching()) return run_cudnn();
  const PlanPromise* promise = nullptr;
  try {
    promise = promise_for_execution(table(), plan_descriptor);
  } catch (const std::exception&) {
    return run_cudnn();  // no memory to look the plan up: cuDNN runs it
  }
  // Another plan of the same graph runs ucudnn's: this one is cuDNN's, as the application timed.
  if (!promise || !promise->runs(plan_descriptor)) return run_cudnn();
  // A pack ucudnn cannot read, or one cuDNN's engine would refuse (no workspace where it needs
  // one), is cuDNN's to judge: the application gets cuDNN's own answer. Not a capped plan's,
  // whose workspace the engine would overrun.
  const bool engine_may_run = promise->engine_may_run();
  VariantPack pack;
  if (!ThreadVariantPacks::find(variant_pack, pack))
    return engine_may_run ? run_cudnn() : unreadable_pack(*promise);
  const cudnn::ConvolutionBuffers buffers{
      pack.pointer(promise->x_uid), pack.pointer(promise->w_uid), pack.pointer(promise->y_uid)};
  if (!buffers.x || !buffers.w || !buffers.y)
    return engine_may_run ? run_cudnn() : CUDNN_STATUS_BAD_PARAM;
  if (!pack.workspace && promise->engine_workspace_bytes > 0 && engine_may_run) return run_cudnn();
  // The workspace the application surely allocated: what it was told.
  const std::size_t bytes = pack.workspace ? promise->allocated_bytes() : 0;
  // The steady state: the plan made at Finalize, run as it is. Nothing is read from descriptors,
  // nothing allocated, no lock taken.
  if (promise->executor && promise->executor->workspace_bytes() <= bytes) {
    const auto result = promise->executor->run(handle, promise->alpha(), buffers, pack.workspace,
                                               bytes, promise->beta());
    if (result.status == CUDNN_STATUS_SUCCESS) {
      promise->executor->count_run();
      return CUDNN_STATUS_SUCCESS;
    }
    // Redone where nothing was written yet, or where beta = 0 (every output element is
    // overwritten without being read): by cuDNN's engine where the workspace holds it, else
    // undivided with an algorithm that fits the workspace.
    const bool zero_beta =
        promise->double_scaling ? promise->beta_double == 0 : promise->beta_float == 0;
    if (result.output_touched && !zero_beta) return result.status;
    warn_once("backend-run-failed:" + promise->executor->kernel().to_string(),
              "a planned graph API execution failed (" +
                  std::string(cudnn::cudnn_api().cudnnGetErrorString(result.status)) + "); " +
                  (engine_may_run ? "cuDNN runs the application's plan"
                                  : "it runs undivided within the application's workspace"));
    if (engine_may_run) return run_cudnn();
    return dispatch::undivided(promise->operation, handle, promise->alpha(), promise->descriptors(),
                               buffers, pack.workspace, bytes, promise->beta(),
                               promise->scope.deterministic_only);
  }
  // WD, or a plan that needs more workspace than the application was told: planned per call
  // (convolution() plans within what it was given).
  return convolution(promise->operation, handle, promise->alpha(), promise->descriptors(), buffers,
                     cudnn::virtual_algorithm(promise->operation), pack.workspace, bytes,
                     promise->beta(), promise->scope);
}

cudnnStatus_t populate_cuda_graph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan_descriptor,
                                  cudnnBackendDescriptor_t variant_pack, cudaGraph_t graph) {
  if (engine_overruns(plan_descriptor)) return CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API;
  return call(api().cudnnBackendPopulateCudaGraph, handle, plan_descriptor, variant_pack, graph);
}

cudnnStatus_t update_cuda_graph(cudnnHandle_t handle, cudnnBackendDescriptor_t plan_descriptor,
                                cudnnBackendDescriptor_t variant_pack, cudaGraph_t graph) {
  if (engine_overruns(plan_descriptor)) return CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API;
  return call(api().cudnnBackendUpdateCudaGraph, handle, plan_descriptor, variant_pack, graph);
}

}  // namespace ucudnn::shim::backend
