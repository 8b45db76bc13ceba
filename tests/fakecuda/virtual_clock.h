#pragma once
// Streams and events of the runtime double on a virtual clock. Work runs at once on the
// host; what a stream "takes" is the modeled time the cuDNN double adds to its clock. An
// event records its stream's clock, and the elapsed time between two events is the
// difference, so an application timing with events measures modeled time, exactly and
// deterministically.
//
// Where the host pays for its calls (FAKECUDA_HOST_COST_US, host_cost.h), the GPU also waits for
// the host, as a real one does. Each host thread has a virtual clock, advanced by the host work
// the cuDNN double charges (host_busy) and by waiting for a stream or an event; work issued to a
// stream starts no earlier than the issuing thread's clock, and an event recorded there reads no
// earlier. So a run timed with events on an idle stream includes the host's issuing of it (the
// library's work before its kernel starts), and runs issued while the stream is busy run back to
// back. A host function queued on a stream holds it from the time it was issued until it runs:
// the work queued behind it runs back to back, as behind a gate that opens once the host has
// queued it (the gate is taken as opening where it began: times between events behind it are
// exact, a stream's clock after it is early by the host's issuing). The timeline starts with the
// first charge and stays on for the process: without host costs every time is the model's alone,
// as before, so suites that charge the host run in processes of their own.
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

  // The calling thread's host work of `ms` (starts the timeline).
  void host_busy(double ms);
  // The calling thread waited for the stream's work, the event's, or the device's.
  void host_waits_for_stream(cudaStream_t stream);
  void host_waits_for_event(cudaEvent_t event);
  void host_waits_for_all();
  // A host function queued on the stream, and the same function run.
  void hold(cudaStream_t stream);
  void release(cudaStream_t stream);

 private:
  struct Event {
    bool timing = true;
    std::optional<double> recorded_ms;
  };
  // The stream's clock (double or const double), nullptr when the stream is unknown.
  // Callers hold mutex_.
  template <typename Self>
  static auto clock_of(Self& self, cudaStream_t stream) -> decltype(&self.default_clock_ms_);
  // Where the timeline runs and nothing holds the stream, its clock catches up with the
  // calling thread's: the GPU idled until the host issued the work. Callers hold mutex_.
  void wait_for_host(double* clock);

  mutable std::mutex mutex_;
  double default_clock_ms_ = 0;
  std::unordered_map<cudaStream_t, double> streams_;  // stream -> clock in ms
  std::unordered_map<cudaEvent_t, Event> events_;
  bool timeline_ = false;                        // the host's time counts (host_busy was called)
  std::unordered_map<const double*, int> held_;  // a stream's clock -> host functions pending
};

}  // namespace ucudnn::fakecuda
