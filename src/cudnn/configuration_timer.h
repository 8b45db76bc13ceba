#pragma once
// Runs a planned configuration for real and times it: on scratch buffers of its own (zeros),
// on the handle's stream, one warm-up run, then the median of timed runs with CUDA events.
// What benchmarks and `ucudnn bench` use to check a plan's predicted time against reality.
#include <optional>

#include "core/configuration.h"
#include "core/kernel_key.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

// Milliseconds; nullopt when memory cannot be allocated or a run fails.
std::optional<double> time_configuration(const CudnnApi& api, const CudaRuntime& runtime,
                                         cudnnHandle_t handle, const KernelKey& kernel,
                                         const Configuration& configuration, int repeats);

}  // namespace ucudnn::cudnn
