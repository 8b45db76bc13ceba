#pragma once
// Plans kernels for one handle: measures cuDNN's algorithms through the store (nothing is
// measured twice: not in this process, and with a database not ever), runs the WR dynamic
// program or the Pareto-front DP for WD, and reuses stored plans only after validating them
// against what cuDNN says now.
#include <mutex>

#include "core/benchmark_store.h"
#include "core/expected.h"
#include "core/pareto_front.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "shim/settings.h"

namespace ucudnn::shim {

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
};

// WR: the fastest configuration whose every micro-batch fits `limit`.
Expected<Configuration> plan_reuse(const PlannerContext& context, const KernelKey& kernel,
                                   std::uint64_t limit);

// WD: the kernel's desirable configurations (Pareto front) within `limit`.
Expected<ParetoFront> desirable_set(const PlannerContext& context, const KernelKey& kernel,
                                    std::uint64_t limit);

// Why a configuration cannot run on this device within `limit` (nullopt: it can).
std::optional<std::string> plan_problem(const PlannerContext& context, const KernelKey& kernel,
                                        const Configuration& plan, std::uint64_t limit);

}  // namespace ucudnn::shim
