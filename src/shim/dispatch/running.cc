// Running a convolution call (dispatch.h): a concrete algorithm passes through; the virtual
// algorithm runs the kernel's plan (the same call's plan again in the steady state,
// legacy_call_cache.h), planning on first use, and any failure falls back to cuDNN's undivided
// call; the fused convolution with bias and activation runs the planned convolution, then
// cuDNN's bias addition and activation.
#include "shim/dispatch.h"

#include <algorithm>
#include <vector>

#include "cudnn/algorithms.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/cudnn_types.h"
#include "cudnn/scaling.h"
#include "shim/dispatch/planning.h"
#include "shim/legacy_call_cache.h"
#include "shim/registry.h"
#include "shim/stream_state.h"

namespace ucudnn::shim {

using namespace dispatch;

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
    // What a failed plan leaves: redone undivided where nothing was written yet, or where
    // beta = 0 (the undivided call overwrites every output element without reading it).
    auto after_failure = [&](const KernelKey& key, const cudnn::PlanExecutor::Result& result,
                             bool ran) {
      if (result.output_touched && !cudnn::scaling_is_zero(beta, key.problem.data_type))
        return result.status;
      if (ran)
        warn_once("run-failed:" + key.to_string(),
                  "a planned call failed (" +
                      std::string(cudnn::cudnn_api().cudnnGetErrorString(result.status)) +
                      "); running " + key.to_string() + " undivided");
      return fallback();
    };
    // The steady state: the plan this thread ran for the same call, if nothing changed.
    const LegacyCall call{handle,          operation,
                          scope.layer,     scope.deterministic_only,
                          workspace_bytes, scope.math ? static_cast<int>(*scope.math) : -1};
    const std::uint64_t epoch = Registry::instance().plans_epoch();
    cudnn::DescriptorSnapshot snapshot;
    const bool snapshot_read =
        !process_settings().disabled &&
        cudnn::read_snapshot(cudnn::cudnn_api(), d.x, d.w, d.convolution, d.y, snapshot);
    if (snapshot_read)
      if (const cudnn::PlanExecutor* plan = LegacyCallCache::find(call, snapshot, epoch)) {
        const auto result = plan->run(handle, alpha, buffers, workspace, workspace_bytes, beta);
        if (result.status == CUDNN_STATUS_SUCCESS) {
          plan->count_run();
          return result.status;
        }
        return after_failure(plan->kernel(), result, true);
      }
    cudnnStatus_t status;
    bool unsupported;
    auto request = read_request(operation, handle, d, scope, status, unsupported,
                                snapshot_read ? &snapshot : nullptr);
    if (!request) return unsupported ? fallback() : status;
    auto state = Registry::instance().state(handle);
    std::lock_guard lock(state->mutex);
    const auto& kernel = request->kernel;
    const auto handle_stream = stream_of(handle);
    const bool captured = capturing(handle_stream);
    cudnn::PlanExecutor::Result result;
    bool ran = false;
    const cudnnStatus_t planned = or_else(
        Failing{operation, " with the virtual algorithm"},
        [&] {
          const cudnn::PlanExecutor* plan = nullptr;
          std::shared_ptr<cudnn::PlanExecutor> keep;
          void* plan_workspace = workspace;
          std::size_t plan_bytes = workspace_bytes;
          // A WR plan's limit: the configured one within what the call is given.
          const auto configured = state->workspace_limit(request->settings);
          const std::uint64_t limit =
              configured ? std::min<std::uint64_t>(*configured, workspace_bytes) : workspace_bytes;
          // Holds the WD session's lock until the plan's work is issued.
          std::optional<WorkspaceDivisionSession::Placement> placement;
          bool beside_division = false;  // placed, then run in the application's workspace
          if (auto* division = active_division(*state, request->settings, captured)) {
            // The application may hold more workspace for this call than the division gives
            // the kernel (a graph API application allocates its engine's): a WR plan within it
            // runs there instead where it is faster, so that the division is never slower than
            // what the application's own workspace allows. Planned before the division's lock
            // is taken.
            std::shared_ptr<cudnn::PlanExecutor> within;
            if (!captured && workspace_bytes > 0)
              within = plan_within(*state, kernel, limit, request->settings,
                                   planning_outside_find(request->settings));
            // The legacy stream where it cannot be read (then `captured` holds too).
            const cudaStream_t stream = handle_stream.value_or(nullptr);
            placement = captured ? division->captured_placement(kernel, stream)
                                 : division->place(
                                       kernel, division_context(*state, request->settings), stream);
            if (placement && within && within->workspace_bytes() <= workspace_bytes &&
                placement->bytes < workspace_bytes &&
                within->configuration().time_ms() < placement->plan->configuration().time_ms()) {
              placement.reset();  // the segment stays free for the kernels that need it
              keep = std::move(within);
              plan = keep.get();
              beside_division = true;
            } else if (placement) {
              plan = placement->plan;
              plan_workspace = placement->workspace;
              plan_bytes = placement->bytes;
            }
          }
          if (!plan) {
            auto& plans = state->plans[kernel];
            if (plans.reported && plans.reported->workspace_bytes() <= workspace_bytes) {
              keep = plans.reported;
            } else if (captured) {
              // During capture only a plan made before runs; else the call passes through.
              if (auto* planned = plans.by_limit.find(limit)) keep = *planned;
            } else {
              keep = plan_within(*state, kernel, limit, request->settings,
                                 planning_outside_find(request->settings));
              // No plan at this limit: the undivided call, kept so that the next call runs it
              // from the steady state.
              if (!keep) keep = undivided_executor(*state, kernel, d, workspace_bytes);
            }
            if (!keep) return CUDNN_STATUS_NOT_SUPPORTED;
            plan = keep.get();
          }
          ran = true;
          result = plan->run(handle, alpha, buffers, plan_workspace, plan_bytes, beta);
          if (result.status == CUDNN_STATUS_SUCCESS) plan->count_run();
          // A WR plan (no placement in a WD arena) runs again as it is while nothing changes.
          // (Not one run beside a division: each of its calls is the division's to count.)
          if (result.status == CUDNN_STATUS_SUCCESS && keep && !placement && !beside_division &&
              snapshot_read)
            LegacyCallCache::remember(call, snapshot, epoch, keep);
          return result.status;
        },
        [] { return CUDNN_STATUS_NOT_SUPPORTED; });
    if (planned == CUDNN_STATUS_SUCCESS) return planned;
    if (!ran) result.status = planned;
    return after_failure(kernel.key, result, ran);
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

}  // namespace ucudnn::shim
