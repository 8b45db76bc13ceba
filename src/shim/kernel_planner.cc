#include "shim/kernel_planner.h"

#include <algorithm>

#include "core/engine_name.h"
#include "core/plan_mode.h"
#include "core/plan_validation.h"
#include "core/reduction_precision.h"
#include "core/stored_benchmarker.h"
#include "core/workspace_reuse.h"
#include "cudnn/algorithms.h"
#include "cudnn/backend_descriptor.h"
#include "cudnn/candidate_workspace.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/current_device.h"
#include "cudnn/measuring_account.h"
#include "cudnn/micro_batch_descriptors.h"
#include "cudnn/runtime_call_counts.h"
#include "shim/application_engines.h"
#include "shim/hybrid_executor.h"
#include "shim/log.h"
#include "shim/outdated_plans.h"
#include "shim/planning_saves.h"
#include "shim/registry.h"
#include "shim/stored_plan_candidates.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

const AlgorithmExclusion PlannerContext::kNothingExcluded;

namespace {

// "14 ran and were timed; the other 16 do not apply at their size, need more workspace than
// the limit, or cannot be measured now". Where cuDNN refuses configurations at small shapes,
// most pairs asked are never timed; the exit line counts only the timed ones.
std::string ran_and_the_others(const StoredBenchmarker& stored) {
  const std::size_t run = stored.measurements_run(), others = stored.measurements_taken() - run;
  std::string text = std::to_string(run) + " ran and " + (run == 1 ? "was" : "were") + " timed";
  if (others == 1)
    text +=
        "; the other one does not apply at its size, needs more workspace than the limit, or "
        "cannot be measured now";
  else if (others > 1)
    text += "; the other " + std::to_string(others) +
            " do not apply at their size, need more workspace than the limit, or cannot be "
            "measured now";
  return text;
}

// A configuration the application runs for the kernel, allowed to it, that the store has not
// measured at any planned size: no plan of the kernel was made with it. (Pruning measures
// every candidate at one size at least where it fits: at the full batch for WR, at the
// smallest size for WD and the hybrid split, core/micro_table.h.)
std::optional<std::string> unmeasured_application_engine(const PlannerContext& context,
                                                         const KernelKey& kernel) {
  if (!context.application_engines || !context.engine_candidates) return std::nullopt;
  auto sizes = planned_micro_batch_sizes(kernel, context.policy);
  // Where the measurement is, if anywhere: the full batch (WR), then the smallest size (WD).
  std::rotate(sizes.rbegin(), sizes.rbegin() + 1, sizes.rend());
  const std::string device = context.fingerprint.to_string();
  for (const auto& c : context.application_engines->of(kernel.to_string())) {
    const std::string name = c.name.to_string();
    if (!cudnn::allowed(c.notes, kernel.problem.math_type, context.deterministic_only) ||
        context.excluded->excludes("cudnn", name))
      continue;
    if (std::none_of(sizes.begin(), sizes.end(), [&](std::int64_t size) {
          return context.store.find_measurement(device, kernel.with_batch(size), "cudnn", name)
              .has_value();
        }))
      return name;
  }
  return std::nullopt;
}

}  // namespace

PlannerContext for_kernel(const PlannerContext& context, const KernelIdentity& kernel) {
  PlannerContext restricted = context;
  restricted.deterministic_only = kernel.deterministic_only;
  if (kernel.deterministic_only)
    restricted.excluded =
        &Registry::instance().deterministic_exclusion(*context.excluded, kernel.key.operation);
  restricted.unplanned_application_engine = unmeasured_application_engine(restricted, kernel.key);
  return restricted;
}

namespace {

// Stands in for the device when measuring is not allowed: whatever the store lacks is
// unavailable now.
class NothingMeasured final : public Benchmarker {
 public:
  explicit NothingMeasured(Benchmarker& device) : device_(device) {}
  std::string backend_name() const override { return device_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return device_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    return device_.algorithms(kernel);
  }
  std::optional<Measurement> benchmark(const KernelKey&, const std::string&,
                                       std::int64_t) override {
    throw MeasurementUnavailable("not measured: this call does not benchmark");
  }

 private:
  Benchmarker& device_;
};

// A device's candidates as planning may take them: without the user's exclusion (accounted in
// the process's account, where one is kept), then without the context's (the nondeterministic
// algorithms too, where the kernel must run deterministically).
class AllowedCandidates {
 public:
  AllowedCandidates(const PlannerContext& context, Benchmarker& device) : context_(context) {
    if (context.exclusion_account) users_.emplace(device, *context.exclusion_account);
    allowed_.emplace(users_ ? static_cast<Benchmarker&>(*users_) : device, *context.excluded);
  }
  Benchmarker& benchmarker() { return *allowed_; }
  // Why the kernel last listed had no candidate left, where an exclusion took them all: the
  // user's (kEveryCandidateExcluded), or the user's and the nondeterministic algorithms.
  std::optional<std::string> every_candidate_excluded() const {
    if (users_ && users_->emptied_last_list()) return kEveryCandidateExcluded;
    if (!allowed_->emptied_last_list()) return std::nullopt;
    if (!context_.deterministic_only) return kEveryCandidateExcluded;
    return context_.exclusion_account
               ? "every candidate of it is nondeterministic or excluded by "
                 "UCUDNN_EXCLUDE_ALGORITHMS, and it must run deterministically"
               : "every candidate of it is nondeterministic, and it must run deterministically";
  }

 private:
  const PlannerContext& context_;
  std::optional<ExcludingBenchmarker> users_;
  std::optional<ExcludingBenchmarker> allowed_;
};

// What UCUDNN_BENCHMARK_LIMIT left out of a kernel's measuring, for its log line.
std::string left_out_text(std::size_t left_out, std::size_t limit) {
  if (left_out == 0) return "";
  return "; " + std::to_string(left_out) +
         " configurations within the limit were not measured (UCUDNN_BENCHMARK_LIMIT=" +
         std::to_string(limit) + "; 0: every one)";
}

// Online, the first run of a job waits for what is measured: only what could win (`pruning`).
// `excluded_all`, where given, says why an exclusion left the kernel no candidate.
MicroTable measure(const PlannerContext& context, const KernelKey& kernel, std::uint64_t limit,
                   Pruning pruning, std::optional<std::string>* excluded_all = nullptr) {
  const cudnn::MeasuringScope measuring;  // first: the benchmarker's buffers go before it ends
  std::lock_guard lock(context.device_mutex);
  const cudnn::MeasuringTime timed(kernel.to_string());
  const cudnn::CurrentDevice on(context.runtime, context.device);
  cudnn::GpuBenchmarkOptions options;
  options.warmup = 1;
  options.repeats = context.benchmark_repeats;
  options.workspace_limit = limit;
  options.caller = context.caller;
  options.engines = context.engine_candidates;
  // WR plans only: their mode says whether variants were candidates (core/plan_mode.h).
  if (context.knob_variants && pruning == Pruning::kFastest) options.knob_variants_over = limit;
  options.deterministic_only = context.deterministic_only;
  options.benchmark_limit = context.benchmark_limit;
  options.excluded = context.excluded;
  if (context.application_engines)
    options.application_engines = context.application_engines->of(kernel.to_string());
  options.heuristics = context.heuristics;
  options.gating = context.gating;
  options.kept_plans = context.kept_plans;
  cudnn::CudnnBenchmarker device(context.api, context.runtime, context.handle, context.fingerprint,
                                 options);
  AllowedCandidates allowed(context, device);
  NothingMeasured nothing(allowed.benchmarker());
  const PlanningSaves held(context.store);  // the kernel's measurements in one transaction
  StoredBenchmarker stored(context.may_measure ? allowed.benchmarker() : nothing, context.store);
  MicroTable table = measure_micro_table(stored, kernel, context.policy, limit, pruning);
  table.left_out = device.left_out_by_benchmark_limit(kernel);
  if (excluded_all) *excluded_all = allowed.every_candidate_excluded();
  if (context.may_measure && stored.measurements_taken() > 0)
    log(LogLevel::kInfo, "benchmarked " + std::to_string(stored.measurements_taken()) +
                             " (algorithm, micro-batch) pairs of " + kernel.to_string() + " (" +
                             ran_and_the_others(stored) + "); " + std::to_string(table.pruned) +
                             " could not win and were skipped" +
                             left_out_text(table.left_out, context.benchmark_limit));
  return table;
}

// A WR plan's key; `left_out`: made where UCUDNN_BENCHMARK_LIMIT left candidates out.
PlanKey plan_key(const PlannerContext& context, const KernelKey& kernel, std::uint64_t limit,
                 bool left_out = false) {
  return {context.fingerprint.to_string(), kernel.to_string(), std::string(name_of(context.policy)),
          limit,
          plan_mode(kReuseMode, context.deterministic_only, context.knob_variants,
                    left_out ? context.benchmark_limit : 0)};
}

}  // namespace

namespace {

std::optional<std::string> excluded_problem(const PlannerContext& context,
                                            const Configuration& plan) {
  if (auto algorithm = context.excluded->excluded_in(plan))
    return "it uses " + *algorithm +
           (context.deterministic_only
                ? ", nondeterministic or excluded by UCUDNN_EXCLUDE_ALGORITHMS"
                : ", excluded by UCUDNN_EXCLUDE_ALGORITHMS");
  return std::nullopt;
}

std::optional<std::string> device_plan_problem(const PlannerContext& context,
                                               const KernelKey& kernel, const Configuration& plan,
                                               std::uint64_t limit) {
  if (auto problem = excluded_problem(context, plan)) return problem;
  return plan_validation_error(kernel, plan, "cudnn", limit,
                               [&](const KernelKey& micro, const std::string& name) {
                                 return cudnn::candidate_workspace(context.api, context.handle,
                                                                   micro, name, context.kept_plans);
                               });
}

}  // namespace

std::optional<MicroConfiguration> undivided_within(const PlannerContext& context,
                                                   const KernelKey& kernel, std::uint64_t limit) {
  PlannerContext stored_only = context;
  stored_only.may_measure = false;
  const MicroTable table = measure(stored_only, kernel, limit, context.pruning);
  if (table.candidates.empty()) return std::nullopt;
  if (const MicroConfiguration* best = fastest(table.candidates.back())) return *best;
  return std::nullopt;
}

Expected<Configuration> plan_reuse(const PlannerContext& context, const KernelKey& kernel,
                                   std::uint64_t limit) {
  // A plan made among every candidate first; under UCUDNN_BENCHMARK_LIMIT, one made among the
  // heuristics' first then (never without it: it may lack the best).
  std::vector<PlanKey> keys{plan_key(context, kernel, limit)};
  if (context.benchmark_limit > 0) keys.push_back(plan_key(context, kernel, limit, true));
  std::optional<PlannerContext> every_candidate;
  for (const PlanKey& key : keys) {
    const auto stored = context.store.find_plan(key);
    if (!stored || stored->size() != 1) continue;
    if (auto excluded = excluded_problem(context, stored->front()))
      log(LogLevel::kInfo, "a stored plan for " + kernel.to_string() + ": " + *excluded +
                               ": planning without it for this process");
    else if (auto problem = plan_problem(context, kernel, stored->front(), limit))
      warn_once("invalid-plan:" + key.subject + key.mode,
                "discarding an invalid stored plan for " + kernel.to_string() + ": " + *problem);
    else if (const auto reason = context.may_measure
                                     ? outdated(context, kernel, stored->front(), limit)
                                     : std::nullopt)
      log(LogLevel::kInfo, "a stored plan for " + kernel.to_string() + *reason);
    else {
      note_stored_candidates(context, kernel);
      return stored->front();
    }
    // Planned again below, in its place: a plan made among every candidate, among all again
    // (mostly stored measurements), so that it is not found wanting at each run.
    if (key.mode == keys.front().mode && context.benchmark_limit > 0) {
      every_candidate.emplace(context);
      every_candidate->benchmark_limit = 0;
    }
    break;
  }
  const PlannerContext& planning = every_candidate ? *every_candidate : context;
  std::optional<std::string> excluded_all;
  const MicroTable table = measure(planning, kernel, limit, context.pruning, &excluded_all);
  if (excluded_all) return Error{*excluded_all};
  if (!table.complete && !context.may_measure) return Error{kNotEveryMeasurementStored};
  auto plan = plan_workspace_reuse(table);
  // A plan made while some measurement was unavailable serves this process only. One made among
  // some candidates answers no smaller limit: there, others the limit on their number left out
  // come into the first N; so too one made among knob variants (of the limit's configurations).
  const bool left_out = table.left_out > 0;
  if (plan && table.complete && context.store_plans)
    context.store.put_plan(
        plan_key(planning, kernel, limit, left_out), {*plan},
        limits_answered(table, *plan,
                        context.knob_variants || left_out ? std::optional(limit) : std::nullopt));
  return plan;
}

namespace {

// The GPU's fields, then the CPU's under "host.": a hybrid plan holds while both hold.
DeviceFingerprint joint_fingerprint(const DeviceFingerprint& gpu, const DeviceFingerprint& cpu) {
  DeviceFingerprint joint = gpu;
  for (const auto& [name, value] : cpu.fields) joint.fields.emplace_back("host." + name, value);
  return joint;
}

// The host measures sizes the policy allows, but not every size where it allows all: the CPU
// has no workspace limit to fit, so its finest sizes buy nothing (any share is a sum of powers
// of two) and would cost a measurement each.
BatchSizePolicy host_policy(BatchSizePolicy policy) {
  return policy == BatchSizePolicy::kAll ? BatchSizePolicy::kPowerOfTwo : policy;
}

std::optional<std::string> hybrid_problem(const PlannerContext& context, const KernelKey& kernel,
                                          const Configuration& plan, std::uint64_t limit,
                                          HostBackend& host) {
  if (auto problem = excluded_problem(context, plan)) return problem;
  if (plan.batch() != kernel.problem.batch())
    return "the plan covers " + std::to_string(plan.batch()) + " of " +
           std::to_string(kernel.problem.batch()) + " images";
  const Configuration device{plan.micro, std::nullopt};
  if (plan.device_batch() > 0)
    if (auto problem =
            device_plan_problem(context, kernel.with_batch(plan.device_batch()), device, limit))
      return problem;
  if (!plan.offload) return std::nullopt;
  if (plan.offload->micro.empty()) return "the CPU's share has no micro-batches";
  if (plan.offload->device_bytes > limit) return "the CPU's results need more than the limit";
  try {
    host.workspace_bytes(kernel.with_batch(plan.offload->batch()),
                         Configuration{plan.offload->micro, std::nullopt});
  } catch (const std::exception& error) {
    return std::string("the CPU's share: ") + error.what();
  }
  return std::nullopt;
}

MicroTable measure_host(const PlannerContext& context, const KernelKey& kernel, Benchmarker& cpu) {
  AllowedCandidates allowed(context, cpu);
  NothingMeasured nothing(allowed.benchmarker());
  const PlanningSaves held(context.store);  // the kernel's measurements in one transaction
  StoredBenchmarker stored(context.may_measure ? allowed.benchmarker() : nothing, context.store);
  MicroTable table = measure_micro_table(stored, kernel, host_policy(context.policy),
                                         kNoWorkspaceLimit, Pruning::kDominated);
  if (context.may_measure && stored.measurements_taken() > 0)
    log(LogLevel::kInfo, "benchmarked " + std::to_string(stored.measurements_taken()) +
                             " (CPU solver, micro-batch) pairs of " + kernel.to_string() + " (" +
                             ran_and_the_others(stored) + ")");
  return table;
}

}  // namespace

std::optional<std::string> plan_problem(const PlannerContext& context, const KernelKey& kernel,
                                        const Configuration& plan, std::uint64_t limit) {
  if (!plan.offload) return device_plan_problem(context, kernel, plan, limit);
  if (!context.host) return "the plan gives the CPU a share, and CPU/GPU hybrid is off";
  return hybrid_problem(context, kernel, plan, limit, *context.host->backend);
}

Expected<Configuration> plan_hybrid(const PlannerContext& context, const KernelKey& kernel,
                                    std::uint64_t limit, const HostSide& host) {
  Benchmarker& cpu = host.backend->benchmarker();
  const PlanKey key{joint_fingerprint(context.fingerprint, cpu.fingerprint()).to_string(),
                    kernel.to_string(), std::string(name_of(context.policy)), limit,
                    plan_mode(host.mode == HybridMode::kOn ? kHybridOnMode : kHybridAutoMode,
                              context.deterministic_only)};
  if (auto stored = context.store.find_plan(key); stored && stored->size() == 1) {
    if (auto excluded = excluded_problem(context, stored->front()))
      log(LogLevel::kInfo, "a stored hybrid plan for " + kernel.to_string() + ": " + *excluded +
                               ": planning without it for this process");
    else if (auto problem = hybrid_problem(context, kernel, stored->front(), limit, *host.backend))
      warn_once(
          "invalid-plan:" + key.subject + key.mode,
          "discarding an invalid stored hybrid plan for " + kernel.to_string() + ": " + *problem);
    else if (const auto reason = context.may_measure
                                     ? outdated(context, kernel, stored->front(), limit)
                                     : std::nullopt)
      log(LogLevel::kInfo, "a stored hybrid plan for " + kernel.to_string() + *reason);
    else {
      note_stored_candidates(context, kernel, &cpu);
      return stored->front();
    }
  }
  // A hybrid plan's key names no limit on the candidates' number: it is made among all.
  PlannerContext every_candidate = context;
  every_candidate.benchmark_limit = 0;
  const MicroTable device = measure(every_candidate, kernel, limit, Pruning::kDominated);
  const MicroTable on_host = measure_host(context, kernel, cpu);
  const bool complete = device.complete && on_host.complete;
  if (!complete && !context.may_measure) return Error{kNotEveryMeasurementStored};
  auto split = plan_hybrid_split(kernel, device, on_host, host.link, limit, host.mode);
  if (!split) return Error{split.error()};
  log(LogLevel::kInfo,
      std::string(name_of(kernel.operation)) + " hybrid within " + format_byte_size(limit) + ": " +
          std::to_string(split->host_samples) + " of " + std::to_string(kernel.problem.batch()) +
          " images on the CPU, " + std::to_string(split->configuration.time_ms()) + " ms vs " +
          std::to_string(split->device_only_ms) + " ms on the GPU alone; the throughput rule " +
          "gives the CPU " + std::to_string(split->throughput_rule_samples) + " (" +
          std::to_string(split->throughput_rule_ms) + " ms)");
  if (complete && context.store_plans)
    context.store.put_plan(key, {split->configuration}, LimitRange::exactly(limit));
  return split->configuration;
}

std::shared_ptr<cudnn::PlanExecutor> make_executor(const PlannerContext& context,
                                                   const KernelKey& kernel,
                                                   const Configuration& configuration) {
  if (!configuration.offload)
    return std::make_shared<cudnn::PlanExecutor>(context.api, context.handle, kernel, configuration,
                                                 context.kept_plans);
  if (!context.host)
    throw std::invalid_argument("the plan gives the CPU a share, and CPU/GPU hybrid is off");
  auto device_only = plan_reuse(context, kernel, configuration.workspace_bytes());
  if (!device_only)
    throw std::invalid_argument("no plan for the GPU alone within the split's workspace: " +
                                device_only.error());
  return std::make_shared<HybridExecutor>(context.api, context.runtime, context.handle, kernel,
                                          *device_only, configuration, *context.host->backend,
                                          context.kept_plans);
}

Expected<ParetoFront> desirable_set(const PlannerContext& context, const KernelKey& kernel,
                                    std::uint64_t limit) {
  // A front needs every candidate that is not dominated, whatever WR could skip.
  const Pruning pruning =
      context.pruning == Pruning::kExhaustive ? Pruning::kExhaustive : Pruning::kDominated;
  std::optional<std::string> excluded_all;
  const MicroTable device = measure(context, kernel, limit, pruning, &excluded_all);
  if (excluded_all && !context.host) return Error{*excluded_all};
  ParetoFront front;
  if (context.host) {
    const MicroTable host = measure_host(context, kernel, context.host->backend->benchmarker());
    front = hybrid_desirable_configurations(kernel, device, host, context.host->link, limit,
                                            context.host->mode);
  } else {
    front = desirable_configurations(device);
  }
  if (front.empty())
    return Error{"no configuration of " + kernel.to_string() + " fits " + std::to_string(limit) +
                 " bytes"};
  return front;
}

}  // namespace ucudnn::shim
