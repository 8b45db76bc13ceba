// The shared steps of the shim's calls (planning.h).
#include "shim/dispatch/planning.h"

#include <algorithm>
#include <vector>

#include "core/benchmark_store.h"
#include "core/engine_name.h"
#include "cudnn/algorithms.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/current_device.h"
#include "cudnn/host_link_probe.h"
#include "shim/hybrid_executor.h"
#include "shim/no_plan_warning.h"
#include "shim/planning_saves.h"
#include "shim/registry.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim::dispatch {

namespace {

// The kernel a plan line is about, for people: "Forward x=[8,3,16,16] w=[16,3,5,5] (layer 4)".
std::string kernel_in_log(const KernelIdentity& kernel) {
  return kernel.key.brief() + (kernel.layer == kNoLayer
                                   ? std::string()
                                   : " (layer " + std::to_string(kernel.layer) + ")");
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

// For the line logged at exit (planned_kernels.h): the plan beside the best undivided candidate
// within the same limit. Only at the info level, which that line needs: the baseline may ask
// cuDNN's heuristics.
void account_plan(HandleState& state, const PlannerContext& context, const KernelIdentity& kernel,
                  std::uint64_t limit, double plan_ms, const cudnn::PlanExecutor& executor,
                  bool split_with_host) {
  const auto baseline = undivided_within(context, kernel.key, limit);
  Registry::instance()
      .device(state.device)
      .planned.record(kernel.key.to_string(), plan_ms,
                      baseline ? std::optional<double>(baseline->time_ms) : std::nullopt,
                      executor.workspace_bytes(), executor.runs(), split_with_host);
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
  std::shared_ptr<HybridExecutor> executor;
  try {
    executor = std::make_shared<HybridExecutor>(cudnn::cudnn_api(), cudnn::cuda_runtime(),
                                                state.handle, kernel.key, device_only, *split,
                                                *host->backend, context.kept_plans);
  } catch (const std::exception& error) {
    warn_once("hybrid-setup:" + kernel.key.to_string(),
              "the CPU/GPU split of " + kernel.key.to_string() + " cannot run (" + error.what() +
                  "); the GPU takes the whole batch");
    return nullptr;
  }
  if (log_enabled(LogLevel::kInfo)) {
    log(LogLevel::kInfo, kernel_in_log(kernel) + " hybrid plan within " + format_byte_size(limit) +
                             ": " + split->to_string() + " (" + std::to_string(split->time_ms()) +
                             " ms)");
    account_plan(state, context, kernel, limit, split->time_ms(), *executor, true);
  }
  return executor;
}

}  // namespace

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
  if (settings.excludes_something) context.exclusion_account = &registry.exclusion_account();
  context.store_plans = !settings.excludes_something;
  context.engine_candidates = settings.engine_candidates;
  context.knob_variants = settings.knob_variants;
  context.benchmark_limit = settings.benchmark_limit;
  context.application_engines = &device.application_engines;
  context.heuristics = &device.heuristics;
  context.gating = &device.gating;
  return context;
}

bool deterministic(const Configuration& configuration, Operation operation,
                   bool deterministic_only) {
  return std::all_of(configuration.micro.begin(), configuration.micro.end(),
                     [&](const MicroConfiguration& m) {
                       if (is_engine_name(m.algorithm)) return deterministic_only;
                       auto value = cudnn::algorithm_value(operation, m.algorithm);
                       return value && cudnn::is_deterministic(operation, *value);
                     });
}

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

WorkspaceDivisionSession* active_division(HandleState& state, const Settings& settings,
                                          bool captured) {
  auto* division = captured ? state.division.get() : division_session(state, settings);
  return division && !division->given_up() ? division : nullptr;
}

Planning planning_for(cudnn::Selection selection, const Settings& settings) {
  const bool find = selection != cudnn::Selection::kHeuristic;
  return {find || !settings.benchmark_in_find_only, find, std::nullopt};
}

Planning planning_outside_find(const Settings& settings) {
  return {!settings.benchmark_in_find_only, false, std::nullopt};
}

PlannerContext division_context(HandleState& state, const Settings& settings) {
  PlannerContext context = context_for(state, settings);
  context.pruning = Pruning::kExhaustive;
  context.knob_variants = false;  // WR plans of their own only (core/plan_mode.h)
  // A division's tables serve every share of the total a kernel may get: the small-workspace
  // configurations a small share needs rank after the first N within the whole total.
  context.benchmark_limit = 0;
  if (settings.hybrid != Hybrid::kOff)
    context.host = host_side(state, settings, state.total_workspace(settings).value_or(0),
                             context.may_measure);
  return context;
}

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
  cudnn::FinalizedPlans kept;  // measuring's and the check's, for the executor
  context.kept_plans = &kept;
  const PlanningSaves held(context.store);  // what planning the kernel stores, in one transaction
  auto plan = plan_reuse(context, kernel.key, limit);
  if (!plan) {
    if (failed.size() >= kLimitsPerKernel) failed.erase(failed.begin());
    failed.push_back(limit);
    say_no_plan(context, kernel.key, limit, plan.error());
    return nullptr;
  }
  auto& slot = plans.by_limit[limit];
  slot = hybrid_within(state, kernel, limit, settings, context, *plan);
  if (slot) return slot;
  slot = std::make_shared<cudnn::PlanExecutor>(cudnn::cudnn_api(), state.handle, kernel.key, *plan,
                                               &kept);
  if (log_enabled(LogLevel::kInfo)) {
    log(LogLevel::kInfo, kernel_in_log(kernel) + " plan within " + format_byte_size(limit) + ": " +
                             plan->to_string() + " (" + std::to_string(plan->time_ms()) + " ms, " +
                             format_byte_size(slot->workspace_bytes()) + ")");
    account_plan(state, context, kernel, limit, plan->time_ms(), *slot, false);
  }
  return slot;
}

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

std::shared_ptr<cudnn::PlanExecutor> undivided_executor(HandleState& state,
                                                        const KernelIdentity& kernel,
                                                        const ConvolutionDescriptors& d,
                                                        std::size_t bytes) {
  auto& kept = state.plans[kernel].undivided;
  if (auto* known = kept.find(bytes)) return *known;
  const Operation operation = kernel.key.operation;
  cudnnStatus_t status;
  const auto algorithm = heuristic_algorithm(
      operation, state.handle, d, bytes,
      [&](int a) { return !kernel.deterministic_only || cudnn::is_deterministic(operation, a); },
      status);
  if (!algorithm) return nullptr;
  MicroConfiguration whole{"cudnn", std::string(cudnn::algorithm_name(operation, *algorithm)),
                           kernel.key.problem.batch()};
  std::shared_ptr<cudnn::PlanExecutor> executor;
  try {
    executor = std::make_shared<cudnn::PlanExecutor>(cudnn::cudnn_api(), state.handle, kernel.key,
                                                     Configuration{{whole}});
  } catch (const std::exception&) {
    return nullptr;  // descriptors cuDNN refuses as ucudnn builds them: undivided() answers
  }
  if (executor->workspace_bytes() > bytes) return nullptr;
  kept[bytes] = executor;
  return executor;
}

std::optional<Request> read_request(Operation operation, cudnnHandle_t handle,
                                    const ConvolutionDescriptors& d, PlanScope scope,
                                    cudnnStatus_t& status, bool& unsupported,
                                    const cudnn::DescriptorSnapshot* snapshot) {
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
      snapshot ? cudnn::problem_from_snapshot(*snapshot, d.x, d.w, d.convolution, d.y, problem)
               : cudnn::problem_from_descriptors(cudnn::cudnn_api(), d.x, d.w, d.convolution, d.y,
                                                 problem);
  if (!read.ok()) {
    unsupported = read.unsupported;
    if (!unsupported) status = read.status;
    log(LogLevel::kDebug, "not planned: " + read.message);
    return std::nullopt;
  }
  if (scope.math) problem.math_type = *scope.math;
  return Request{settings,
                 {{operation, std::move(problem)}, scope.layer, scope.deterministic_only}};
}

}  // namespace ucudnn::shim::dispatch
