// What each legacy call does on the shim (dispatch.h): Get/Find, workspace sizes, the
// convolution calls, handle lifetime and options. Long because each call has its fallback
// path beside it, so that no failure is ever more than one screen from its undivided call.
#include "shim/dispatch.h"

#include <algorithm>
#include <exception>
#include <vector>

#include "cudnn/algorithms.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/cudnn_types.h"
#include "cudnn/current_device.h"
#include "cudnn/host_link_probe.h"
#include "cudnn/problem_from_descriptors.h"
#include "cudnn/runtime_call_counts.h"
#include "cudnn/scaling.h"
#include "shim/hybrid_executor.h"
#include "shim/kernel_planner.h"
#include "shim/log.h"
#include "shim/registry.h"
#include "shim/stream_state.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

namespace {

using cudnn::AlgorithmPerf;
using cudnn::ConvolutionBuffers;
using cudnn::ConvolutionDescriptors;

// More results than any operation has algorithms, plus ours: larger requests are clamped so
// that a huge requestedAlgoCount never allocates.
constexpr int kMaxResults = 64;

// Planning needs every function of both tables; passing a call through needs only the one it
// calls (convolution_calls.cc checks each).
bool planning_possible() {
  const auto& api = cudnn::cudnn_api();
  const auto& runtime = cudnn::cuda_runtime();
  if (api.complete() && runtime.complete()) return true;
  warn_once("tables-incomplete",
            "the cuDNN library or the CUDA runtime lacks functions ucudnn needs (" + api.missing +
                (api.missing.empty() || runtime.missing.empty() ? "" : " ") + runtime.missing +
                "); convolutions pass through unplanned");
  return false;
}

// Runs `body`, turning any exception into a status and a warning: nothing may cross the C
// boundary. Bodies catch what they can recover from themselves; this is the last line.
template <typename Body>
cudnnStatus_t guarded(const char* where, Body body) {
  try {
    return body();
  } catch (const std::exception& error) {
    warn_once(std::string("exception:") + where,
              std::string(where) + " failed inside ucudnn: " + error.what());
  } catch (...) {
    warn_once(std::string("exception:") + where, std::string(where) + " failed inside ucudnn");
  }
  return CUDNN_STATUS_INTERNAL_ERROR;
}

// Runs `planned`; on an exception warns once and runs `fallback` instead.
template <typename Planned, typename Fallback>
cudnnStatus_t or_else(const std::string& what, Planned planned, Fallback fallback) {
  try {
    return planned();
  } catch (const std::exception& error) {
    warn_once("failed:" + what, what + " failed inside ucudnn (" + error.what() +
                                    "); cuDNN's own undivided call is used instead");
  }
  return fallback();
}

PlannerContext context_for(HandleState& state, const Settings& settings) {
  auto& registry = Registry::instance();
  auto& device = registry.device(state.device);
  PlannerContext context{cudnn::cudnn_api(),
                         cudnn::cuda_runtime(),
                         state.handle,
                         state.device,
                         registry.store_for(device),
                         device.fingerprint,
                         device.benchmark_mutex,
                         state.policy(settings),
                         settings.benchmark_repeats,
                         true,
                         std::nullopt};
  context.excluded = &settings.excluded;
  return context;
}

bool deterministic(const Configuration& configuration, Operation operation) {
  return std::all_of(configuration.micro.begin(), configuration.micro.end(),
                     [&](const MicroConfiguration& m) {
                       auto value = cudnn::algorithm_value(operation, m.algorithm);
                       return value && cudnn::is_deterministic(operation, *value);
                     });
}

// Brings the handle's WD session in line with its options and returns it: the device's
// session for the total and policy, or null (and the handle lets go of it) under WR.
WorkspaceDivisionSession* division_session(HandleState& state, const Settings& settings) {
  const auto total = state.total_workspace(settings);
  if (!total) {
    state.division.reset();
    return nullptr;
  }
  const BatchSizePolicy policy = state.policy(settings);
  if (!state.division || state.division->total_bytes() != *total ||
      state.division_policy != policy) {
    state.division = Registry::instance().division_session(state.device, *total, policy);
    state.division_policy = policy;
  }
  return state.division.get();
}

// The WD session a call may use, null where none is on or it has given up. During capture the
// handle's session as it stands: re-reading the options could swap sessions, which allocates.
WorkspaceDivisionSession* active_division(HandleState& state, const Settings& settings,
                                          bool captured) {
  auto* division = captured ? state.division.get() : division_session(state, settings);
  return division && !division->given_up() ? division : nullptr;
}

// How a call may plan a kernel it has no plan for.
struct Planning {
  bool may_measure = true;    // benchmark what the store lacks
  bool retry_failed = false;  // plan again under a limit that found nothing before (Find)
  std::optional<cudnn::CallerBuffers> caller;  // Find*Ex: measure in the caller's buffers
};

Planning planning_for(cudnn::Selection selection, const Settings& settings) {
  const bool find = selection != cudnn::Selection::kHeuristic;
  return {find || !settings.benchmark_in_find_only, find, std::nullopt};
}

// A call that is not a Find: it plans only where UCUDNN_BENCHMARK_IN allows, and never again
// under a limit that found nothing.
Planning planning_outside_find(const Settings& settings) {
  return {!settings.benchmark_in_find_only, false, std::nullopt};
}

// The host's side of CPU/GPU hybrid when UCUDNN_HYBRID asks for it: the CPU backend and the
// link, probed once per GPU (with buffers within `limit`); nullopt when hybrid is off or
// cannot be had.
std::optional<HostSide> host_side(HandleState& state, const Settings& settings, std::uint64_t limit,
                                  bool may_measure) {
  if (settings.hybrid == Hybrid::kOff) return std::nullopt;
  if (state.hybrid_host) return state.hybrid_host;
  auto& registry = Registry::instance();
  HostBackend* backend = registry.host_backend();
  if (!backend) return std::nullopt;
  auto& device = registry.device(state.device);
  std::optional<HostLink> link;
  bool measured = false;
  {
    std::lock_guard lock(device.benchmark_mutex);
    if (!device.host_link && may_measure) {
      const auto& runtime = cudnn::cuda_runtime();
      const cudnn::CurrentDevice on(runtime, state.device);
      constexpr std::uint64_t kProbeBytes = 8u << 20;
      device.host_link = cudnn::probe_host_link(
          runtime,
          static_cast<std::size_t>(std::max<std::uint64_t>(1, std::min(limit, kProbeBytes))));
      if (!*device.host_link)
        warn_once("no-host-link:" + std::to_string(state.device),
                  "the host-device link could not be measured: CPU/GPU hybrid is off");
    }
    measured = device.host_link.has_value();
    if (measured)
      link = *device.host_link;
    else
      link = HostLink{};  // nothing is measured now: only stored plans can answer
  }
  if (!link) return std::nullopt;
  const HostSide host{backend, *link,
                      settings.hybrid == Hybrid::kOn ? HybridMode::kOn : HybridMode::kAuto};
  if (measured) state.hybrid_host = host;
  return host;
}

// What WD plans and runs with: with the host where UCUDNN_HYBRID asks for it (the link probed
// within the total).
PlannerContext division_context(HandleState& state, const Settings& settings) {
  PlannerContext context = context_for(state, settings);
  if (settings.hybrid != Hybrid::kOff)
    context.host = host_side(state, settings, state.total_workspace(settings).value_or(0),
                             context.may_measure);
  return context;
}

// The hybrid executor for `kernel` beside its GPU plan `device_only`, or nullptr where
// hybrid is off, pays nothing (auto) or cannot be set up: the GPU's plan runs.
std::shared_ptr<cudnn::PlanExecutor> hybrid_within(HandleState& state, const KernelIdentity& kernel,
                                                   std::uint64_t limit, const Settings& settings,
                                                   const PlannerContext& context,
                                                   const Configuration& device_only) {
  if (!splittable_between_devices(kernel.key)) return nullptr;
  const auto host = host_side(state, settings, limit, context.may_measure);
  if (!host) return nullptr;
  const auto split = plan_hybrid(context, kernel.key, limit, *host);
  if (!split) {
    warn_once("no-hybrid:" + kernel.key.to_string() + std::to_string(limit),
              "no CPU/GPU split for " + kernel.key.to_string() + ": " + split.error());
    return nullptr;
  }
  if (!split->offload) return nullptr;
  try {
    auto executor =
        std::make_shared<HybridExecutor>(cudnn::cudnn_api(), cudnn::cuda_runtime(), state.handle,
                                         kernel.key, device_only, *split, *host->backend);
    log(LogLevel::kInfo, std::string(name_of(kernel.key.operation)) + " hybrid plan within " +
                             format_byte_size(limit) + ": " + split->to_string() + " (" +
                             std::to_string(split->time_ms()) + " ms)");
    return executor;
  } catch (const std::exception& error) {
    warn_once("hybrid-setup:" + kernel.key.to_string(),
              "the CPU/GPU split of " + kernel.key.to_string() + " cannot run (" + error.what() +
                  "); the GPU takes the whole batch");
    return nullptr;
  }
}

// The kernel's WR plan within `limit`, planned at most once per limit until a Find retries a
// failure; nullptr when nothing fits (the call passes through). Under UCUDNN_HYBRID the plan
// may split the batch with the CPU.
std::shared_ptr<cudnn::PlanExecutor> plan_within(HandleState& state, const KernelIdentity& kernel,
                                                 std::uint64_t limit, const Settings& settings,
                                                 const Planning& how) {
  auto& plans = state.plans[kernel];
  if (auto* planned = plans.by_limit.find(limit); planned && *planned) return *planned;
  auto& failed = plans.failed_limits;
  if (auto at = std::find(failed.begin(), failed.end(), limit); at != failed.end()) {
    if (!how.retry_failed) return nullptr;
    failed.erase(at);
  }
  PlannerContext context = for_kernel(context_for(state, settings), kernel);
  context.may_measure = how.may_measure;
  context.caller = how.caller;
  auto plan = plan_reuse(context, kernel.key, limit);
  if (!plan) {
    if (failed.size() >= kLimitsPerKernel) failed.erase(failed.begin());
    failed.push_back(limit);
    warn_once("no-plan:" + kernel.key.to_string() + std::to_string(limit),
              "no plan for " + kernel.key.to_string() + " within " + format_byte_size(limit) +
                  ": " + plan.error() + "; passing the call through");
    return nullptr;
  }
  auto& slot = plans.by_limit[limit];
  slot = hybrid_within(state, kernel, limit, settings, context, *plan);
  if (slot) return slot;
  slot = std::make_shared<cudnn::PlanExecutor>(cudnn::cudnn_api(), state.handle, kernel.key, *plan);
  log(LogLevel::kInfo, std::string(name_of(kernel.key.operation)) + " plan within " +
                           format_byte_size(limit) + ": " + plan->to_string() + " (" +
                           std::to_string(plan->time_ms()) + " ms, " +
                           format_byte_size(slot->workspace_bytes()) + ")");
  return slot;
}

// The first algorithm of cuDNN's heuristic ranking that runs within `bytes` and that
// `accept`s, as the application would have chosen without ucudnn; nullopt with the status
// when the ranking fails, nullopt with NOT_SUPPORTED when none fits.
template <class Accept>
std::optional<int> heuristic_algorithm(Operation operation, cudnnHandle_t handle,
                                       const ConvolutionDescriptors& d, std::size_t bytes,
                                       Accept accept, cudnnStatus_t& status) {
  AlgorithmPerf results[kMaxResults];
  int count = 0;
  status = cudnn::select_algorithms(cudnn::cudnn_api(), handle, operation,
                                    cudnn::Selection::kHeuristic, d, kMaxResults, &count, results);
  if (status != CUDNN_STATUS_SUCCESS) return std::nullopt;
  for (int i = 0; i < count; ++i)
    if (results[i].status == CUDNN_STATUS_SUCCESS && results[i].memory <= bytes &&
        accept(results[i].algorithm))
      return results[i].algorithm;
  status = CUDNN_STATUS_NOT_SUPPORTED;
  return std::nullopt;
}

// The undivided call with a concrete algorithm that fits the caller's workspace (a
// deterministic one where the caller asked for determinism).
cudnnStatus_t undivided(Operation operation, cudnnHandle_t handle, const void* alpha,
                        const ConvolutionDescriptors& d, const ConvolutionBuffers& buffers,
                        void* workspace, std::size_t bytes, const void* beta,
                        bool deterministic_only) {
  cudnnStatus_t status;
  const auto algorithm = heuristic_algorithm(
      operation, handle, d, bytes,
      [&](int a) { return !deterministic_only || cudnn::is_deterministic(operation, a); }, status);
  if (!algorithm) return status;
  return cudnn::convolve(cudnn::cudnn_api(), handle, operation, *algorithm, alpha, d, buffers,
                         workspace, bytes, beta);
}

struct Request {
  const Settings& settings;
  KernelIdentity kernel;
};

// Reads the kernel of a call. nullopt with an error status: the call is invalid (the caller
// returns the status, as cuDNN would); nullopt with `unsupported`: valid but not planned
// (disabled, incomplete libraries, vectorized or mixed types), passed through.
std::optional<Request> read_request(Operation operation, cudnnHandle_t handle,
                                    const ConvolutionDescriptors& d, PlanScope scope,
                                    cudnnStatus_t& status, bool& unsupported) {
  status = CUDNN_STATUS_SUCCESS;
  unsupported = true;
  const Settings& settings = process_settings();
  if (settings.disabled || !planning_possible()) return std::nullopt;
  unsupported = false;
  if (!handle) {
    status = CUDNN_STATUS_BAD_PARAM;
    return std::nullopt;
  }
  ConvolutionProblem problem;
  const auto read =
      cudnn::problem_from_descriptors(cudnn::cudnn_api(), d.x, d.w, d.convolution, d.y, problem);
  if (!read.ok()) {
    unsupported = read.unsupported;
    if (!unsupported) status = read.status;
    log(LogLevel::kDebug, "not planned: " + read.message);
    return std::nullopt;
  }
  return Request{settings,
                 {{operation, std::move(problem)}, scope.layer, scope.deterministic_only}};
}

}  // namespace

std::optional<AlgorithmPerf> planned_result(Operation operation, cudnn::Selection selection,
                                            cudnnHandle_t handle, const ConvolutionDescriptors& d,
                                            const ConvolutionBuffers& buffers, void* workspace,
                                            std::size_t workspace_bytes, PlanScope scope) {
  cudnnStatus_t status;
  bool unsupported;
  auto request = read_request(operation, handle, d, scope, status, unsupported);
  if (!request) return std::nullopt;
  // Results a locked database could not take earlier are saved now.
  Registry::instance().store().flush();
  auto state = Registry::instance().state(handle);
  std::lock_guard lock(state->mutex);
  std::optional<AlgorithmPerf> plan;
  const std::string what = std::string(name_of(operation)) + " planning";
  const bool captured = capturing(stream_of(handle));
  or_else(
      what,
      [&] {
        const auto& kernel = request->kernel;
        const auto math = cudnn::to_cudnn(kernel.key.problem.math_type);
        auto* division = active_division(*state, request->settings, captured);
        if (division && !captured) {
          const auto context = division_context(*state, request->settings);
          division->note(kernel, context);
          const auto configuration = division->reported_configuration(kernel, context);
          if (!configuration) return CUDNN_STATUS_NOT_SUPPORTED;
          // The arena is ucudnn's: the application allocates nothing.
          plan = AlgorithmPerf{cudnn::virtual_algorithm(operation),
                               CUDNN_STATUS_SUCCESS,
                               static_cast<float>(configuration->time_ms()),
                               0,
                               deterministic(*configuration, operation) ? CUDNN_DETERMINISTIC
                                                                        : CUDNN_NON_DETERMINISTIC,
                               math};
          return CUDNN_STATUS_SUCCESS;
        }
        const std::uint64_t limit =
            state->workspace_limit(request->settings)
                .value_or(selection == cudnn::Selection::kFindEx ? workspace_bytes
                                                                 : kDefaultWorkspaceLimit);
        std::shared_ptr<cudnn::PlanExecutor> executor;
        if (captured) {
          // Nothing is planned during capture: what is known already, else cuDNN's answer.
          if (auto* known = state->plans.find(kernel)) executor = known->reported;
        } else {
          Planning how = planning_for(selection, request->settings);
          if (selection == cudnn::Selection::kFindEx)
            how.caller =
                cudnn::CallerBuffers{buffers.x, buffers.w, buffers.y, workspace, workspace_bytes};
          executor = plan_within(*state, kernel, limit, request->settings, how);
        }
        if (!executor) return CUDNN_STATUS_NOT_SUPPORTED;
        state->plans[kernel].reported = executor;
        plan = AlgorithmPerf{cudnn::virtual_algorithm(operation),
                             CUDNN_STATUS_SUCCESS,
                             static_cast<float>(executor->configuration().time_ms()),
                             executor->workspace_bytes(),
                             deterministic(executor->configuration(), operation)
                                 ? CUDNN_DETERMINISTIC
                                 : CUDNN_NON_DETERMINISTIC,
                             math};
        return CUDNN_STATUS_SUCCESS;
      },
      [] { return CUDNN_STATUS_NOT_SUPPORTED; });
  return plan;
}

cudnnStatus_t find_algorithms(Operation operation, cudnn::Selection selection, cudnnHandle_t handle,
                              const ConvolutionDescriptors& d, int requested, int* returned,
                              AlgorithmPerf* results, const ConvolutionBuffers& buffers,
                              void* workspace, std::size_t workspace_bytes, PlanScope scope) {
  return guarded("cudnnFind/GetConvolutionAlgorithm", [&]() -> cudnnStatus_t {
    auto pass = [&] {
      return cudnn::select_algorithms(cudnn::cudnn_api(), handle, operation, selection, d,
                                      requested, returned, results, buffers, workspace,
                                      workspace_bytes);
    };
    // cuDNN's own libraries crash on some of these (measured on cuDNN 9.19 with a GPU): the
    // documented BAD_PARAM is answered here without calling them.
    if (!handle || requested < 1 || !returned || !results) return CUDNN_STATUS_BAD_PARAM;
    // Find*Ex runs in the caller's buffers: cuDNN's own answer to missing ones.
    if (selection == cudnn::Selection::kFindEx &&
        (!buffers.x || !buffers.w || !buffers.y || (!workspace && workspace_bytes > 0)))
      return pass();
    // Invalid descriptors, or no plan: cuDNN's own answer.
    const auto plan =
        planned_result(operation, selection, handle, d, buffers, workspace, workspace_bytes, scope);
    if (!plan) return pass();
    results[0] = *plan;
    int theirs = 0;
    if (requested > 1 &&
        cudnn::select_algorithms(cudnn::cudnn_api(), handle, operation, selection, d,
                                 std::min(requested, kMaxResults) - 1, &theirs, results + 1,
                                 buffers, workspace, workspace_bytes) != CUDNN_STATUS_SUCCESS)
      theirs = 0;
    *returned = 1 + theirs;
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t workspace_size(Operation operation, cudnnHandle_t handle,
                             const ConvolutionDescriptors& d, int algorithm, std::size_t* bytes,
                             PlanScope scope) {
  return guarded("cudnnGetConvolutionWorkspaceSize", [&]() -> cudnnStatus_t {
    if (!handle || !bytes) return CUDNN_STATUS_BAD_PARAM;  // as in find_algorithms
    if (algorithm != cudnn::virtual_algorithm(operation))
      return cudnn::workspace_size(cudnn::cudnn_api(), handle, operation, d, algorithm, bytes);
    cudnnStatus_t status;
    bool unsupported;
    auto request = read_request(operation, handle, d, scope, status, unsupported);
    // Unplanned: the convolution call will run undivided (undivided()) with cuDNN's heuristic
    // choice within whatever workspace it is given; no workspace is needed, unless cuDNN's
    // heuristic refuses the descriptors or finds no algorithm for them.
    if (!request && unsupported) {
      *bytes = 0;
      AlgorithmPerf results[kMaxResults];
      int count = 0;
      const cudnnStatus_t refused =
          cudnn::select_algorithms(cudnn::cudnn_api(), handle, operation,
                                   cudnn::Selection::kHeuristic, d, kMaxResults, &count, results);
      if (refused != CUDNN_STATUS_SUCCESS) return refused;
      const bool runnable = std::any_of(results, results + count, [](const AlgorithmPerf& r) {
        return r.status == CUDNN_STATUS_SUCCESS;
      });
      return runnable ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (!request) return status;
    auto state = Registry::instance().state(handle);
    std::lock_guard lock(state->mutex);
    *bytes = 0;
    const bool captured = capturing(stream_of(handle));
    if (auto* division = active_division(*state, request->settings, captured)) {
      if (!captured) division->note(request->kernel, division_context(*state, request->settings));
      return CUDNN_STATUS_SUCCESS;
    }
    return or_else(
        std::string(name_of(operation)) + " planning",
        [&] {
          auto& plans = state->plans[request->kernel];
          if (!plans.reported && !captured) {
            const std::uint64_t limit =
                state->workspace_limit(request->settings).value_or(kDefaultWorkspaceLimit);
            plans.reported = plan_within(*state, request->kernel, limit, request->settings,
                                         planning_outside_find(request->settings));
          }
          if (plans.reported) *bytes = plans.reported->workspace_bytes();
          return CUDNN_STATUS_SUCCESS;
        },
        [] { return CUDNN_STATUS_SUCCESS; });
  });
}

cudnnStatus_t algorithm_max_count(Operation operation, cudnnHandle_t handle, int* count) {
  return guarded("cudnnGetConvolutionAlgorithmMaxCount", [&]() -> cudnnStatus_t {
    if (!handle || !count) return CUDNN_STATUS_BAD_PARAM;  // as in find_algorithms
    const cudnnStatus_t status =
        cudnn::algorithm_max_count(cudnn::cudnn_api(), handle, operation, count);
    if (status == CUDNN_STATUS_SUCCESS && !process_settings().disabled) ++*count;
    return status;
  });
}

cudnnStatus_t convolution(Operation operation, cudnnHandle_t handle, const void* alpha,
                          const ConvolutionDescriptors& d, const ConvolutionBuffers& buffers,
                          int algorithm, void* workspace, std::size_t workspace_bytes,
                          const void* beta, PlanScope scope) {
  return guarded("cudnnConvolution", [&]() -> cudnnStatus_t {
    if (!handle) return CUDNN_STATUS_BAD_PARAM;  // as in find_algorithms
    if (algorithm != cudnn::virtual_algorithm(operation))
      return cudnn::convolve(cudnn::cudnn_api(), handle, operation, algorithm, alpha, d, buffers,
                             workspace, workspace_bytes, beta);
    if (!handle || !alpha || !beta || !buffers.x || !buffers.w || !buffers.y)
      return CUDNN_STATUS_BAD_PARAM;
    // cuDNN accepts a null workspace with a size (an algorithm that needs none runs): to us
    // it is no workspace.
    if (!workspace) workspace_bytes = 0;
    auto fallback = [&] {
      return undivided(operation, handle, alpha, d, buffers, workspace, workspace_bytes, beta,
                       scope.deterministic_only);
    };
    cudnnStatus_t status;
    bool unsupported;
    auto request = read_request(operation, handle, d, scope, status, unsupported);
    if (!request) return unsupported ? fallback() : status;

    auto state = Registry::instance().state(handle);
    std::lock_guard lock(state->mutex);
    const auto& kernel = request->kernel;
    const std::string what = std::string(name_of(operation)) + " with the virtual algorithm";
    const auto handle_stream = stream_of(handle);
    const bool captured = capturing(handle_stream);
    cudnn::PlanExecutor::Result result;
    bool ran = false;
    const cudnnStatus_t planned = or_else(
        what,
        [&] {
          const cudnn::PlanExecutor* plan = nullptr;
          std::shared_ptr<cudnn::PlanExecutor> keep;
          void* plan_workspace = workspace;
          std::size_t plan_bytes = workspace_bytes;
          // Holds the WD session's lock until the plan's work is issued.
          std::optional<WorkspaceDivisionSession::Placement> placement;
          if (auto* division = active_division(*state, request->settings, captured)) {
            // The legacy stream where it cannot be read (then `captured` holds too).
            const cudaStream_t stream = handle_stream.value_or(nullptr);
            placement = captured ? division->captured_placement(kernel, stream)
                                 : division->place(
                                       kernel, division_context(*state, request->settings), stream);
            if (placement) {
              plan = placement->plan;
              plan_workspace = placement->workspace;
              plan_bytes = placement->bytes;
            }
          }
          if (!plan) {
            auto& plans = state->plans[kernel];
            const auto configured = state->workspace_limit(request->settings);
            const std::uint64_t limit = configured
                                            ? std::min<std::uint64_t>(*configured, workspace_bytes)
                                            : workspace_bytes;
            if (plans.reported && plans.reported->workspace_bytes() <= workspace_bytes) {
              keep = plans.reported;
            } else if (captured) {
              // During capture only a plan made before runs; else the call passes through.
              if (auto* planned = plans.by_limit.find(limit)) keep = *planned;
            } else {
              keep = plan_within(*state, kernel, limit, request->settings,
                                 planning_outside_find(request->settings));
            }
            if (!keep) return CUDNN_STATUS_NOT_SUPPORTED;
            plan = keep.get();
          }
          ran = true;
          result = plan->run(handle, alpha, buffers, plan_workspace, plan_bytes, beta);
          return result.status;
        },
        [] { return CUDNN_STATUS_NOT_SUPPORTED; });
    if (planned == CUDNN_STATUS_SUCCESS) return planned;
    // Redoing the call undivided is safe when nothing was written yet, or when beta = 0 (the
    // undivided call overwrites every output element without reading it).
    if (result.output_touched && !cudnn::scaling_is_zero(beta, kernel.key.problem.data_type))
      return planned;
    if (ran)
      warn_once("run-failed:" + kernel.key.to_string(),
                "a planned call failed (" +
                    std::string(cudnn::cudnn_api().cudnnGetErrorString(result.status)) +
                    "); running " + kernel.key.to_string() + " undivided");
    return fallback();
  });
}

namespace {

struct TensorFacts {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  std::vector<int> dims;
};

std::optional<TensorFacts> tensor_facts(cudnnTensorDescriptor_t desc) {
  TensorFacts facts;
  int rank = 0;
  int dims[CUDNN_DIM_MAX], strides[CUDNN_DIM_MAX];
  if (!desc || cudnn::cudnn_api().cudnnGetTensorNdDescriptor(
                   desc, CUDNN_DIM_MAX, &facts.type, &rank, dims, strides) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  facts.dims.assign(dims, dims + rank);
  return facts;
}

}  // namespace

cudnnStatus_t convolution_bias_activation(cudnnHandle_t handle, const void* alpha1,
                                          const ConvolutionDescriptors& d,
                                          const ConvolutionBuffers& buffers, int algorithm,
                                          void* workspace, std::size_t workspace_bytes,
                                          const FusedEpilogue& e, PlanScope scope) {
  return guarded("cudnnConvolutionBiasActivationForward", [&]() -> cudnnStatus_t {
    const auto& api = cudnn::cudnn_api();
    if (!handle) return CUDNN_STATUS_BAD_PARAM;  // as in find_algorithms
    if (!api.cudnnConvolutionBiasActivationForward) return CUDNN_STATUS_NOT_INITIALIZED;
    auto fused = [&](int concrete) {
      return api.cudnnConvolutionBiasActivationForward(
          handle, alpha1, d.x, buffers.x, d.w, buffers.w, d.convolution,
          static_cast<cudnnConvolutionFwdAlgo_t>(concrete), workspace, workspace_bytes, e.alpha2,
          e.z_desc, e.z, e.bias_desc, e.bias, e.activation, d.y, buffers.y);
    };
    if (algorithm != cudnn::virtual_algorithm(Operation::kForward)) return fused(algorithm);
    // A call ucudnn does not plan goes to cuDNN whole, so that cuDNN answers every argument
    // itself: with the algorithm its heuristic ranks first (IDENTITY runs with
    // IMPLICIT_PRECOMP_GEMM only), else with IMPLICIT_PRECOMP_GEMM for cuDNN to judge.
    if (!workspace) workspace_bytes = 0;
    cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
    cudnnNanPropagation_t nan;
    double coefficient = 0;
    const bool activation_read =
        e.activation && api.cudnnGetActivationDescriptor(e.activation, &mode, &nan, &coefficient) ==
                            CUDNN_STATUS_SUCCESS;
    auto pass_through = [&] {
      constexpr int kPrecompGemm = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
      cudnnStatus_t ignored;
      return fused(
          heuristic_algorithm(
              Operation::kForward, handle, d, workspace_bytes,
              [&](int a) { return mode != CUDNN_ACTIVATION_IDENTITY || a == kPrecompGemm; },
              ignored)
              .value_or(kPrecompGemm));
    };
    {
      cudnnStatus_t status;
      bool unsupported;
      if (!read_request(Operation::kForward, handle, d, scope, status, unsupported))
        return unsupported ? pass_through() : status;
    }
    // Everything cuDNN checks before writing y, checked before the first step writes it.
    if (!alpha1 || !e.alpha2 || !e.z || !e.bias || !buffers.y || !activation_read)
      return CUDNN_STATUS_BAD_PARAM;
    if (mode != CUDNN_ACTIVATION_RELU && mode != CUDNN_ACTIVATION_IDENTITY)
      return CUDNN_STATUS_NOT_SUPPORTED;
    const auto y = tensor_facts(d.y), z = tensor_facts(e.z_desc), bias = tensor_facts(e.bias_desc);
    if (!y || !z || !bias || z->dims != y->dims || z->type != y->type || bias->type != y->type ||
        bias->dims.size() != y->dims.size() || y->dims.size() < 2)
      return CUDNN_STATUS_BAD_PARAM;
    for (std::size_t i = 0; i < y->dims.size(); ++i)
      if (bias->dims[i] != (i == 1 ? y->dims[1] : 1)) return CUDNN_STATUS_BAD_PARAM;

    const DataType scaling_type =
        y->type == CUDNN_DATA_DOUBLE ? DataType::kDouble : DataType::kFloat;
    const void* one = cudnn::scaling_one(scaling_type);
    const void* zero = cudnn::scaling_zero(scaling_type);
    const bool with_z = !cudnn::scaling_is_zero(e.alpha2, scaling_type);
    // alpha2 * z enters as the convolution's beta over y: z is copied into y first unless it
    // is y (cuDNN allows z == y for in-place residual additions).
    if (with_z && e.z != buffers.y)
      if (auto status = api.cudnnTransformTensor(handle, one, e.z_desc, e.z, zero, d.y, buffers.y);
          status != CUDNN_STATUS_SUCCESS)
        return status;
    if (auto status = convolution(Operation::kForward, handle, alpha1, d, buffers, algorithm,
                                  workspace, workspace_bytes, with_z ? e.alpha2 : zero, scope);
        status != CUDNN_STATUS_SUCCESS)
      return status;
    if (auto status = api.cudnnAddTensor(handle, one, e.bias_desc, e.bias, one, d.y, buffers.y);
        status != CUDNN_STATUS_SUCCESS)
      return status;
    if (mode == CUDNN_ACTIVATION_IDENTITY) return CUDNN_STATUS_SUCCESS;
    return api.cudnnActivationForward(handle, e.activation, one, d.y, buffers.y, zero, d.y,
                                      buffers.y);
  });
}

cudnnStatus_t create_handle(cudnnHandle_t* handle) {
  const auto& api = cudnn::cudnn_api();
  if (!api.cudnnCreate) return CUDNN_STATUS_NOT_INITIALIZED;
  const cudnnStatus_t status = api.cudnnCreate(handle);
  if (status == CUDNN_STATUS_SUCCESS && handle && *handle) {
    try {
      Registry::instance().created(*handle);
    } catch (const std::exception&) {
      // Out of memory for our state: the first convolution call creates it instead.
    }
  }
  return status;
}

cudnnStatus_t destroy_handle(cudnnHandle_t handle) {
  return guarded("cudnnDestroy", [&]() -> cudnnStatus_t {
    const auto& api = cudnn::cudnn_api();
    if (!api.cudnnDestroy) return CUDNN_STATUS_NOT_INITIALIZED;
    if (handle) Registry::instance().forget(handle);
    return api.cudnnDestroy(handle);
  });
}

namespace {
template <typename Change>
cudnnStatus_t change_options(cudnnHandle_t handle, Change change) {
  return guarded("ucudnn options", [&]() -> cudnnStatus_t {
    if (!handle) return CUDNN_STATUS_BAD_PARAM;
    auto state = Registry::instance().state(handle);
    std::lock_guard lock(state->mutex);
    return change(*state);
  });
}
}  // namespace

cudnnStatus_t set_batch_size_policy(cudnnHandle_t handle, const char* policy) {
  if (!policy) return CUDNN_STATUS_BAD_PARAM;
  return change_options(handle, [&](HandleState& state) {
    auto parsed = parse_batch_size_policy(policy);
    if (!parsed) {
      log(LogLevel::kError, "ucudnnSetBatchSizePolicy: " + parsed.error());
      return CUDNN_STATUS_BAD_PARAM;
    }
    state.options.policy = *parsed;
    state.plans.clear();
    state.division.reset();  // the next call takes the session of the new policy
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t set_workspace_limit(cudnnHandle_t handle, std::size_t bytes) {
  return change_options(handle, [&](HandleState& state) {
    state.options.workspace_limit = bytes;
    state.plans.clear();
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t set_total_workspace_size(cudnnHandle_t handle, std::size_t bytes) {
  return change_options(handle, [&](HandleState& state) {
    state.options.total_workspace = bytes;
    division_session(state, process_settings());  // takes the new total's session, or none
    return CUDNN_STATUS_SUCCESS;
  });
}

cudnnStatus_t set_database(const char* path) {
  return guarded("ucudnnSetDatabase", [&]() -> cudnnStatus_t {
    if (!path || !*path) return CUDNN_STATUS_BAD_PARAM;
    return Registry::instance().use_database(path) ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
  });
}

cudnnStatus_t runtime_call_counts(UcudnnRuntimeCallCounts* measuring,
                                  UcudnnRuntimeCallCounts* other) {
  if (!measuring || !other) return CUDNN_STATUS_BAD_PARAM;
  auto exported = [](const cudnn::RuntimeCallCounts& c) {
    return UcudnnRuntimeCallCounts{c.allocations, c.frees, c.synchronizations};
  };
  const auto totals = cudnn::runtime_call_totals();
  *measuring = exported(totals.measuring);
  *other = exported(totals.other);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t optimize(cudnnHandle_t handle) {
  return change_options(handle, [&](HandleState& state) {
    const Settings& settings = process_settings();
    if (!planning_possible()) return CUDNN_STATUS_NOT_INITIALIZED;
    auto* division = division_session(state, settings);
    if (!division) return CUDNN_STATUS_SUCCESS;  // WR plans are made per kernel already
    return division->solve(division_context(state, settings)) ? CUDNN_STATUS_SUCCESS
                                                              : CUDNN_STATUS_NOT_SUPPORTED;
  });
}

}  // namespace ucudnn::shim
