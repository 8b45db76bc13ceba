#pragma once
// A plan and its undivided baseline run for real on the GPU on the same random inputs, as
// `ucudnn bench` checks a plan: both timed with events, interleaved (one run of each per
// round), and their outputs copied back and compared normwise against cuDNN's stated
// accuracy for the data type.
#include <optional>
#include <random>

#include "core/configuration.h"
#include "core/kernel_key.h"
#include "core/output_comparison.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

// The normwise error cuDNN's algorithms may have against the exact result: float32 may run
// as TF32 on tensor cores (cuDNN's default math), FFT and Winograd lose digits too.
double stated_tolerance(DataType type);

// nullopt when memory cannot be allocated, a run fails, or cuDNN refuses a configuration.
// Outputs are compared for float and double data.
std::optional<SideBySideRuns> run_side_by_side(const CudnnApi& api, const CudaRuntime& runtime,
                                               cudnnHandle_t handle, const KernelKey& kernel,
                                               const Configuration& plan,
                                               const Configuration& baseline, int repeats,
                                               std::mt19937_64& random);

}  // namespace ucudnn::cudnn
