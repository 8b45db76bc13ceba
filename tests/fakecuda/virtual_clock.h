#pragma once
// Streams and events of the runtime double on a virtual clock. Work runs at once on the
// host; what a stream "takes" is the modeled time the cuDNN double adds to its clock. An
// event records its stream's clock, and the elapsed time between two events is the
// difference, so an application timing with events measures modeled time, exactly and
// deterministically.
#include <cuda_runtime_api.h>

#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace ucudnn::fakecuda {

class VirtualClocks {
 public:
  VirtualClocks() = default;
  VirtualClocks(const VirtualClocks&) = delete;
  VirtualClocks& operator=(const VirtualClocks&) = delete;

  cudaStream_t create_stream();
  cudaError_t destroy_stream(cudaStream_t stream);
  cudaError_t advance(cudaStream_t stream, double ms);
  cudaError_t now(cudaStream_t stream, double* ms) const;
  // The stream does not run ahead of the event: its clock becomes at least the event's.
  cudaError_t wait(cudaStream_t stream, cudaEvent_t event);

  cudaEvent_t create_event(bool timing);
  cudaError_t destroy_event(cudaEvent_t event);
  cudaError_t record(cudaEvent_t event, cudaStream_t stream);
  bool is_event(cudaEvent_t event) const;
  cudaError_t elapsed(float* ms, cudaEvent_t start, cudaEvent_t end) const;

 private:
  struct Event {
    bool timing = true;
    std::optional<double> recorded_ms;
  };
  // The stream's clock (double or const double), nullptr when the stream is unknown.
  // Callers hold mutex_.
  template <typename Self>
  static auto clock_of(Self& self, cudaStream_t stream) -> decltype(&self.default_clock_ms_);

  mutable std::mutex mutex_;
  double default_clock_ms_ = 0;
  std::unordered_map<cudaStream_t, double> streams_;  // stream -> clock in ms
  std::unordered_map<cudaEvent_t, Event> events_;
};

}  // namespace ucudnn::fakecuda
