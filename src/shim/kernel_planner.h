#pragma once
// Plans kernels for one handle: measures cuDNN's algorithms through the store (nothing is
// measured twice: not in this process, and with a database not ever), runs the WR dynamic
// program or the Pareto-front DP for WD, and reuses stored plans only after validating them
// against what cuDNN says now.
#include <memory>
#include <mutex>
#include <optional>

#include "core/algorithm_exclusion.h"
#include "core/benchmark_store.h"
#include "core/expected.h"
#include "core/host_backend.h"
#include "core/hybrid_split.h"
#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/finalized_plans.h"
#include "cudnn/plan_executor.h"
#include "shim/kernel_identity.h"
#include "shim/settings.h"

namespace ucudnn::shim {

class ApplicationEngines;  // application_engines.h

// CPU/GPU hybrid: the host that takes a share of the batch, and how.
struct HostSide {
  HostBackend* backend;  // never null
  HostLink link;
  HybridMode mode;
};

struct PlannerContext {
  const cudnn::CudnnApi& api;
  const cudnn::CudaRuntime& runtime;
  cudnnHandle_t handle;
  int device;  // the handle's: benchmarks and their buffers go there, whichever is current
  BenchmarkStore& store;
  const DeviceFingerprint& fingerprint;
  std::mutex& device_mutex;  // one benchmark at a time per GPU, or timings disturb each other
  BatchSizePolicy policy;
  int benchmark_repeats;
  // False: plan only from what the store knows, measuring nothing (a call that must not
  // benchmark); a kernel whose table is incomplete then gets no plan.
  bool may_measure = true;
  // Find*Ex: measure in the caller's buffers and workspace.
  std::optional<cudnn::CallerBuffers> caller;
  // Set where WD may split kernels with the host (UCUDNN_HYBRID); WR's splits are planned by
  // plan_hybrid.
  std::optional<HostSide> host = std::nullopt;
  // UCUDNN_EXCLUDE_ALGORITHMS: never measured, planned or run from a stored plan.
  const AlgorithmExclusion* excluded = &kNothingExcluded;
  // The process's account of what the user's exclusion did (null: none kept). Under
  // `deterministic_only` it accounts the user's entries alone, filtered first.
  ExclusionAccount* exclusion_account = nullptr;
  // False under UCUDNN_EXCLUDE_ALGORITHMS: plans made without what it excludes serve this
  // process only (a plan's key does not name the exclusion, and a later run without it would
  // take them for the best).
  bool store_plans = true;
  // The kernel must run deterministically (for_kernel): `excluded` holds the nondeterministic
  // algorithms too, and its plans are stored under a mode of their own (core/plan_mode.h).
  bool deterministic_only = false;
  // UCUDNN_CANDIDATES: cuDNN's engine configurations (else its legacy algorithms).
  bool engine_candidates = true;
  // UCUDNN_BENCHMARK_LIMIT: at most this many configurations within the limit at the full batch
  // per kernel, the heuristics' first (cudnn/cudnn_benchmarker.h); 0: all.
  std::size_t benchmark_limit = 0;
  // UCUDNN_KNOB_VARIANTS: in a WR plan, a configuration over the limit also offers its
  // smaller-workspace knob values (core/knob_variants.h); the plan's mode says so.
  bool knob_variants = false;
  // What planning leaves unmeasured (core/micro_table.h): a WR plan, made for one limit, skips
  // what cannot be its fastest; WD measures its kernels whole, up front, since their tables
  // serve every segment and whatever workspace is left while it learns.
  Pruning pruning = Pruning::kFastest;
  // The configurations the application's own graph-API plans run, candidates beside the
  // heuristics' for their kernels (the device's; null: none).
  const ApplicationEngines* application_engines = nullptr;
  cudnn::HeuristicsCache* heuristics = nullptr;  // the device's; nullptr: asked per measuring
  cudnn::Gating* gating = nullptr;  // the device's (GpuBenchmarkOptions::gating); nullptr: own
  // A configuration the application runs for the kernel that its stored plans were made
  // without (none measured it): they are planned again where it fits their limit and planning
  // may measure. Read by for_kernel, before planning measures it (the GPU's own plan is made,
  // and measures it, before the kernel's hybrid plan is looked up).
  std::optional<std::string> unplanned_application_engine = std::nullopt;
  // Where the execution plans that measuring and a stored plan's check finalize are kept for
  // the kernel's executor (cudnn/finalized_plans.h; one planning's, on `handle`; null: none).
  cudnn::FinalizedPlans* kept_plans = nullptr;

  static const AlgorithmExclusion kNothingExcluded;
};

// The context for planning `kernel`: a kernel that must run deterministically also excludes
// the operation's nondeterministic algorithms; and whether its stored plans lack a
// configuration of the application's.
PlannerContext for_kernel(const PlannerContext& context, const KernelIdentity& kernel);

// The fastest undivided candidate within `limit`, from what the store has (nothing is
// measured): the baseline a WR plan is reported against. nullopt where none fits.
std::optional<MicroConfiguration> undivided_within(const PlannerContext& context,
                                                   const KernelKey& kernel, std::uint64_t limit);

// WR: the fastest configuration whose every micro-batch fits `limit`. Where planning may not
// measure and the store lacks measurements, the error is kNotEveryMeasurementStored.
Expected<Configuration> plan_reuse(const PlannerContext& context, const KernelKey& kernel,
                                   std::uint64_t limit);
inline constexpr const char* kNotEveryMeasurementStored =
    "not every measurement of it is stored yet";
// The kernel's candidates were all excluded by the user's UCUDNN_EXCLUDE_ALGORITHMS (a plan,
// WR's or WD's, then fails with this error whatever the limit).
inline constexpr const char* kEveryCandidateExcluded =
    "UCUDNN_EXCLUDE_ALGORITHMS excludes every candidate of it";

// The split of the batch between the GPU (within `limit`) and the host that HybridMode asks
// for: a configuration with an offloaded share, or the GPU's own plan where no split is
// predicted to gain (kAuto). Measured and stored like WR's plans, under the GPU's and the
// CPU's fingerprints together.
Expected<Configuration> plan_hybrid(const PlannerContext& context, const KernelKey& kernel,
                                    std::uint64_t limit, const HostSide& host);

// WD: the kernel's desirable configurations (Pareto front) within `limit`; with `context.host`
// the splits with the host among them (hybrid_desirable_configurations).
Expected<ParetoFront> desirable_set(const PlannerContext& context, const KernelKey& kernel,
                                    std::uint64_t limit);

// Why a configuration cannot run on this device within `limit` (nullopt: it can); one with a
// host share needs `context.host` and a host that can run it.
std::optional<std::string> plan_problem(const PlannerContext& context, const KernelKey& kernel,
                                        const Configuration& plan, std::uint64_t limit);

// The executor of `configuration`: cuDNN's, or for one with a host share the hybrid executor
// beside the GPU's WR plan within the same workspace (what runs during capture), taking the
// execution plans it runs from `context.kept_plans`. Throws as the executors' constructors do.
std::shared_ptr<cudnn::PlanExecutor> make_executor(const PlannerContext& context,
                                                   const KernelKey& kernel,
                                                   const Configuration& configuration);

}  // namespace ucudnn::shim
