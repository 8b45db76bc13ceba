#pragma once
// Times a finalized execution plan of cuDNN's graph API as the application built it, at its own
// shapes: what the application would run without ucudnn, the baseline a plan of ucudnn's must
// beat. On scratch buffers of its own (zeros), in a variant pack of its own, on the handle's
// stream: one warm-up run, then the median of timed runs with CUDA events. Its allocations and
// synchronizations count as measuring (runtime_call_counts.h).
#include <cudnn.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "cudnn/backend_api.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/event_timer.h"

namespace ucudnn::cudnn {

struct PlanTensor {
  std::int64_t uid = 0;
  std::size_t bytes = 0;
};

// nullopt when memory cannot be allocated or the plan does not run. `gating` as time_plan's.
std::optional<PlanTiming> time_execution_plan(const BackendApi& backend, const CudnnApi& api,
                                              const CudaRuntime& runtime, cudnnHandle_t handle,
                                              cudnnBackendDescriptor_t plan,
                                              const std::vector<PlanTensor>& tensors,
                                              std::size_t workspace_bytes, int repeats,
                                              Gating* gating = nullptr);

}  // namespace ucudnn::cudnn
