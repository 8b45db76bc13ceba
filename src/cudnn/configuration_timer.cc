#include "cudnn/configuration_timer.h"

#include "cudnn/device_memory.h"
#include "cudnn/event_timer.h"
#include "cudnn/plan_executor.h"
#include "cudnn/scaling.h"

namespace ucudnn::cudnn {

std::optional<PlanTiming> time_plan(const CudaRuntime& runtime, const CudnnApi& api,
                                    cudnnHandle_t handle, const PlanExecutor& plan, int repeats,
                                    Gating* gating) {
  const auto& p = plan.kernel().problem;
  const std::size_t element = element_size(p.data_type);
  auto x = DeviceBuffer::allocate(runtime, p.x.span_elements() * element);
  auto w = DeviceBuffer::allocate(runtime, p.w.span_elements() * element);
  auto y = DeviceBuffer::allocate(runtime, p.y.span_elements() * element);
  auto workspace = DeviceBuffer::allocate(runtime, plan.workspace_bytes());
  if (!x || !w || !y || !workspace) return std::nullopt;
  cudaStream_t stream = nullptr;
  api.cudnnGetStream(handle, &stream);
  for (const DeviceBuffer* b : {&*x, &*w, &*y})
    if (b->size()) runtime.cudaMemsetAsync(b->data(), 0, b->size(), stream);
  const void* alpha = scaling_one(p.data_type);
  const void* beta = scaling_zero(p.data_type);
  auto run = [&] {
    return plan.run(handle, alpha, {x->data(), w->data(), y->data()}, workspace->data(),
                    workspace->size(), beta)
               .status == CUDNN_STATUS_SUCCESS;
  };
  if (!run()) return std::nullopt;  // warm-up
  const auto timed = time_with_events(runtime, stream, repeats, run, gating);
  if (timed.failure != EventTimes::Failure::kNone) return std::nullopt;
  return PlanTiming{timed.median(), timed.least_host(), timed.ungated, timed.gates_timed_out};
}

std::optional<double> time_configuration(const CudnnApi& api, const CudaRuntime& runtime,
                                         cudnnHandle_t handle, const KernelKey& kernel,
                                         const Configuration& configuration, int repeats) {
  try {
    const PlanExecutor plan(api, handle, kernel, configuration);
    const auto timing = time_plan(runtime, api, handle, plan, repeats);
    if (!timing) return std::nullopt;
    return timing->gpu_ms;
  } catch (const std::exception&) {
    return std::nullopt;  // a descriptor or algorithm cuDNN refuses
  }
}

}  // namespace ucudnn::cudnn
