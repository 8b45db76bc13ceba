#include "cudnn/host_link_probe.h"

#include <algorithm>
#include <limits>

#include "cudnn/device_memory.h"
#include "cudnn/event_timer.h"
#include "cudnn/runtime_call_counts.h"

namespace ucudnn::cudnn {

std::optional<HostLink> probe_host_link(const CudaRuntime& runtime, std::size_t bytes,
                                        int repeats) {
  const MeasuringScope measuring;
  bytes = std::max<std::size_t>(bytes, 1);
  auto host = PinnedBuffer::allocate(runtime, bytes);
  auto device = DeviceBuffer::allocate(runtime, bytes);
  const CudaStream stream(runtime);
  if (!host || !device || !stream.valid()) return std::nullopt;
  // Both directions, as a share's copies go both ways; the slower decides.
  // Without a gate: a share's copies are waited for by the host, issuing included.
  Gating ungated{false};
  auto median_ms = [&](std::size_t count) -> std::optional<double> {
    double slowest = 0;
    for (const auto kind : {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost}) {
      void* to = kind == cudaMemcpyHostToDevice ? device->data() : host->data();
      const void* from = kind == cudaMemcpyHostToDevice ? host->data() : device->data();
      const auto times = time_with_events(
          runtime, stream.get(), repeats,
          [&] {
            return runtime.cudaMemcpyAsync(to, from, count, kind, stream.get()) == cudaSuccess;
          },
          &ungated);
      if (times.failure != EventTimes::Failure::kNone) {
        runtime.cudaGetLastError();
        return std::nullopt;
      }
      slowest = std::max(slowest, times.median());
    }
    return slowest;
  };
  const auto latency = median_ms(1);
  const auto large = median_ms(bytes);
  if (!latency || !large) return std::nullopt;
  HostLink link;
  link.latency_ms = *latency;
  const double transfer_ms = *large - *latency;
  link.bytes_per_ms = transfer_ms > 0 ? static_cast<double>(bytes) / transfer_ms
                                      : std::numeric_limits<double>::infinity();
  return link;
}

}  // namespace ucudnn::cudnn
