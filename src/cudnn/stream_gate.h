#pragma once
// Holds a stream still while the host queues work behind it, so that CUDA events time the GPU's
// work and not the host's issuing of it. Timed on an idle stream, a run's events include the
// time from the start event to the run's first kernel: the host's work in the library call
// (cudnnBackendExecute's, some microseconds) and the launch. A micro-batch of 30 us then reads
// 20-40% slow, and a plan of m micro-batches, which a running application issues back to back
// while the GPU is busy, reads m such gaps slow: the planner divides less than it should. Behind
// the gate (a host function, cudaLaunchHostFunc, that returns when released) the start event,
// the run and the stop event are all queued before the GPU reaches them.
//
// CUDA's rules say a host function must not wait for anything that depends on work not yet
// given to the stream, and this one waits for the host to finish issuing: that is safe only
// because the wait is bounded. A library call behind the gate that synchronizes its own stream
// (or loads its kernels, as CUDA's lazy loading may, with a context synchronization), or a full
// launch queue, would wait for the gate, which waits for the call to return. So the gate also
// opens by itself after `timeout`, and says so: the timing behind it is then not the GPU's alone,
// and the caller times that run again without a gate (event_timer.h). The waiting is on CUDA's
// host-function thread, which other host functions of the process (ucudnn's hybrid CPU shares)
// wait behind for as long. On the legacy default stream the gate also holds every blocking
// stream of the application, for as long as the host takes to queue a run. A capturing stream is
// never held.
#include <cuda_runtime_api.h>

#include <chrono>

#include "cudnn/cuda_runtime.h"

namespace ucudnn::cudnn {

class StreamGate {
 public:
  static constexpr std::chrono::milliseconds kTimeout{20};

  // Queues the gate on `stream`; holding() is false where it was not queued (the runtime lacks
  // cudaLaunchHostFunc or refused it, or the stream is capturing): the stream then runs as it
  // would without one.
  StreamGate(const CudaRuntime& runtime, cudaStream_t stream,
             std::chrono::nanoseconds timeout = kTimeout);
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  ~StreamGate();  // opens the gate

  bool holding() const { return state_ != nullptr; }
  void open();
  // Whether the gate opened by itself: read once the stream has passed it (the host
  // synchronized with work queued behind it).
  bool timed_out() const;

 private:
  struct State;
  static void hold(void* state);
  static void drop(State* state);

  State* state_ = nullptr;  // shared with the host function until both are done with it
};

}  // namespace ucudnn::cudnn
