#pragma once
// Runs a planned configuration (or a plan already made) for real and times it: on scratch buffers
// of its own (zeros), on the handle's stream, one warm-up run, then the median of timed runs with
// CUDA events. What benchmarks and `ucudnn bench` use to check a plan's predicted time against
// reality.
#include <optional>

#include "core/configuration.h"
#include "core/kernel_key.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/event_timer.h"

namespace ucudnn::cudnn {

class PlanExecutor;

// The plan as it is (a CPU/GPU split included): its GPU time and what issuing it costs the host;
// nullopt when memory cannot be allocated or a run fails. `gating`: whether timing holds the
// stream (event_timer.h), the device's where the caller keeps one; null: this call's own.
std::optional<PlanTiming> time_plan(const CudaRuntime& runtime, const CudnnApi& api,
                                    cudnnHandle_t handle, const PlanExecutor& plan, int repeats,
                                    Gating* gating = nullptr);

// Milliseconds; nullopt when memory cannot be allocated or a run fails.
std::optional<double> time_configuration(const CudnnApi& api, const CudaRuntime& runtime,
                                         cudnnHandle_t handle, const KernelKey& kernel,
                                         const Configuration& configuration, int repeats);

}  // namespace ucudnn::cudnn
