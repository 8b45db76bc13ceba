#include "cudnn/event_timer.h"

#include <algorithm>
#include <chrono>

#include "cudnn/device_memory.h"

namespace ucudnn::cudnn {

EventTimes time_with_events(const CudaRuntime& runtime, cudaStream_t stream, int repeats,
                            const std::function<bool()>& run) {
  EventTimes result;
  CudaEvent start(runtime), stop(runtime);
  if (!start.valid() || !stop.valid()) {
    result.failure = EventTimes::Failure::kNoEvents;
    return result;
  }
  for (int i = 0; i < std::max(1, repeats); ++i) {
    runtime.cudaEventRecord(start.get(), stream);
    const auto issued = std::chrono::steady_clock::now();
    if (!run()) {
      result.failure = EventTimes::Failure::kRunFailed;
      return result;
    }
    result.sorted_host_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - issued)
            .count());
    runtime.cudaEventRecord(stop.get(), stream);
    float ms = 0;
    if (runtime.cudaEventSynchronize(stop.get()) != cudaSuccess ||
        runtime.cudaEventElapsedTime(&ms, start.get(), stop.get()) != cudaSuccess) {
      runtime.cudaGetLastError();
      result.failure = EventTimes::Failure::kTimingFailed;
      return result;
    }
    result.sorted_ms.push_back(ms);
  }
  std::sort(result.sorted_ms.begin(), result.sorted_ms.end());
  std::sort(result.sorted_host_ms.begin(), result.sorted_host_ms.end());
  return result;
}

}  // namespace ucudnn::cudnn
