#include "cudnn/event_timer.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "cudnn/device_memory.h"
#include "cudnn/stream_gate.h"

namespace ucudnn::cudnn {

EventTimes time_with_events(const CudaRuntime& runtime, cudaStream_t stream, int repeats,
                            const std::function<bool()>& run, Gating* kept) {
  Gating own{true, 1};
  Gating& gating = kept ? *kept : own;
  EventTimes result;
  CudaEvent start(runtime), stop(runtime);
  if (!start.valid() || !stop.valid()) {
    result.failure = EventTimes::Failure::kNoEvents;
    return result;
  }
  bool retry_ungated = false;  // the repeat whose gate timed out, again
  for (int i = 0; i < std::max(1, repeats); ++i) {
    std::optional<StreamGate> gate;
    if (gating.enabled && !retry_ungated) gate.emplace(runtime, stream);
    retry_ungated = false;
    if (gate && !gate->holding()) gate.reset();
    runtime.cudaEventRecord(start.get(), stream);
    const auto issued = std::chrono::steady_clock::now();
    if (!run()) {
      result.failure = EventTimes::Failure::kRunFailed;
      return result;
    }
    const double host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - issued)
            .count();
    runtime.cudaEventRecord(stop.get(), stream);
    if (gate) gate->open();
    float ms = 0;
    if (runtime.cudaEventSynchronize(stop.get()) != cudaSuccess ||
        runtime.cudaEventElapsedTime(&ms, start.get(), stop.get()) != cudaSuccess) {
      runtime.cudaGetLastError();
      result.failure = EventTimes::Failure::kTimingFailed;
      return result;
    }
    if (gate && gate->timed_out()) {
      // The GPU waited for the gate's timeout, not for the work: this repeat again, ungated.
      ++result.gates_timed_out;
      gating.enabled = --gating.timeouts_left > 0;
      retry_ungated = true;
      --i;
      continue;
    }
    result.ungated += !gate;
    result.sorted_host_ms.push_back(host_ms);
    result.sorted_ms.push_back(ms);
  }
  std::sort(result.sorted_ms.begin(), result.sorted_ms.end());
  std::sort(result.sorted_host_ms.begin(), result.sorted_host_ms.end());
  return result;
}

}  // namespace ucudnn::cudnn
