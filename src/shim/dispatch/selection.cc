// What the application is told (dispatch.h): Get/Find put ucudnn's plan first as the virtual
// algorithm, cuDNN's own results after it; the workspace sizes; the algorithm count. Each call
// plans the kernel (WR per limit, or notes it in the WD session) or answers as cuDNN would.
#include "shim/dispatch.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "cudnn/algorithms.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/cudnn_types.h"
#include "cudnn/scaling.h"
#include "shim/dispatch/planning.h"
#include "shim/memory_to_spare.h"
#include "shim/registry.h"
#include "shim/settings.h"
#include "shim/stream_state.h"

namespace ucudnn::shim {

using namespace dispatch;

namespace {

// Where the user set no limit and the device has no memory to spare (memory_to_spare.h): the
// most ucudnn's plan may need, what cuDNN's own first choice needs, which the application would
// have allocated. The graph API holds a plan to the application's engine so; a legacy
// application told a larger workspace than it can allocate fails for want of memory.
std::optional<std::uint64_t> pressure_cap(Operation operation, cudnnHandle_t handle,
                                          const ConvolutionDescriptors& d, int device) {
  if (memory_to_spare(device, kDefaultWorkspaceLimit)) return std::nullopt;
  AlgorithmPerf own[kMaxResults];
  int count = 0;
  if (cudnn::select_algorithms(cudnn::cudnn_api(), handle, operation, cudnn::Selection::kHeuristic,
                               d, kMaxResults, &count, own) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  for (int i = 0; i < count; ++i)
    if (own[i].status == CUDNN_STATUS_SUCCESS) return static_cast<std::uint64_t>(own[i].memory);
  return std::nullopt;
}

std::optional<std::uint64_t> pressure_cap(Operation operation, cudnnHandle_t handle,
                                          const ConvolutionDescriptors& d) {
  // Nothing is planned during capture (planned_result): nothing to cap, nothing to ask.
  if (capturing(stream_of(handle))) return std::nullopt;
  auto state = Registry::instance().state(handle);
  int device = 0;
  {
    std::lock_guard lock(state->mutex);
    if (state->workspace_limit(process_settings())) return std::nullopt;
    device = state->device;
  }
  return pressure_cap(operation, handle, d, device);
}

}  // namespace

std::optional<AlgorithmPerf> planned_result(Operation operation, cudnn::Selection selection,
                                            cudnnHandle_t handle, const ConvolutionDescriptors& d,
                                            const ConvolutionBuffers& buffers, void* workspace,
                                            std::size_t workspace_bytes, PlanScope scope,
                                            std::shared_ptr<cudnn::PlanExecutor>* executor_out,
                                            std::optional<std::uint64_t> at_most) {
  cudnnStatus_t status;
  bool unsupported;
  auto request = read_request(operation, handle, d, scope, status, unsupported);
  if (!request) return std::nullopt;
  // Results a locked database could not take earlier are saved now.
  Registry::instance().store().flush();
  auto state = Registry::instance().state(handle);
  std::lock_guard lock(state->mutex);
  std::optional<AlgorithmPerf> plan;
  const bool captured = capturing(stream_of(handle));
  or_else(
      Failing{operation, " planning"},
      [&] {
        const auto& kernel = request->kernel;
        const auto math = cudnn::to_cudnn(kernel.key.problem.math_type);
        auto* division = active_division(*state, request->settings, captured);
        if (division && !captured) {
          const auto context = division_context(*state, request->settings);
          division->note(kernel, context);
          const auto configuration = division->reported_configuration(
              kernel, context, planning_for(selection, request->settings).retry_failed);
          if (!configuration) return CUDNN_STATUS_NOT_SUPPORTED;
          // The arena is ucudnn's: the application allocates nothing.
          plan = AlgorithmPerf{cudnn::virtual_algorithm(operation),
                               CUDNN_STATUS_SUCCESS,
                               static_cast<float>(configuration->time_ms()),
                               0,
                               deterministic(*configuration, operation, kernel.deterministic_only)
                                   ? CUDNN_DETERMINISTIC
                                   : CUDNN_NON_DETERMINISTIC,
                               math};
          return CUDNN_STATUS_SUCCESS;
        }
        // Find*Ex measures in the caller's workspace, and like cuDNN's answers no plan that
        // needs more than it (a larger limit of the handle's or the settings' included).
        const auto configured = state->workspace_limit(request->settings);
        const std::uint64_t limit =
            std::min(selection == cudnn::Selection::kFindEx
                         ? std::min<std::uint64_t>(
                               configured.value_or(std::numeric_limits<std::uint64_t>::max()),
                               workspace_bytes)
                         : configured.value_or(kDefaultWorkspaceLimit),
                     at_most.value_or(std::numeric_limits<std::uint64_t>::max()));
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
        // Frameworks may ask before every call: a plan reported again changes nothing that a
        // thread's steady state (legacy_call_cache.h) took from it.
        if (auto& reported = state->plans[kernel].reported; reported != executor) {
          reported = executor;
          Registry::instance().plans_changed();
        }
        if (executor_out) *executor_out = executor;
        plan =
            AlgorithmPerf{cudnn::virtual_algorithm(operation),
                          CUDNN_STATUS_SUCCESS,
                          static_cast<float>(executor->configuration().time_ms()),
                          executor->workspace_bytes(),
                          executor->deterministic() ? CUDNN_DETERMINISTIC : CUDNN_NON_DETERMINISTIC,
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
    // Invalid descriptors, or no plan: cuDNN's own answer. (Find*Ex's workspace is its cap.)
    const auto plan = planned_result(
        operation, selection, handle, d, buffers, workspace, workspace_bytes, scope, nullptr,
        selection == cudnn::Selection::kFindEx ? std::nullopt : pressure_cap(operation, handle, d));
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
        Failing{operation, " planning"},
        [&] {
          auto& plans = state->plans[request->kernel];
          if (!plans.reported && !captured) {
            const auto configured = state->workspace_limit(request->settings);
            std::uint64_t limit = configured.value_or(kDefaultWorkspaceLimit);
            if (!configured)
              if (const auto cap = pressure_cap(operation, handle, d, state->device))
                limit = std::min(limit, *cap);
            plans.reported = plan_within(*state, request->kernel, limit, request->settings,
                                         planning_outside_find(request->settings));
            Registry::instance().plans_changed();
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

}  // namespace ucudnn::shim
