#include "cudnn/stream_gate.h"

#include <atomic>
#include <thread>

namespace ucudnn::cudnn {

namespace {
// A gate's one change, by whichever side comes first: the host opens it, or the wait times out.
enum : int { kClosed, kOpened, kTimedOut };
}  // namespace

struct StreamGate::State {
  std::chrono::nanoseconds timeout;
  std::atomic<int> phase{kClosed};
  std::atomic<int> owners{2};  // the gate and its host function
};

StreamGate::StreamGate(const CudaRuntime& runtime, cudaStream_t stream,
                       std::chrono::nanoseconds timeout) {
  if (!runtime.cudaLaunchHostFunc || !runtime.cudaStreamIsCapturing) return;
  // Queued on a capturing stream, the gate would become a node of the application's graph.
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusActive;
  if (runtime.cudaStreamIsCapturing(stream, &capturing) != cudaSuccess ||
      capturing != cudaStreamCaptureStatusNone) {
    runtime.cudaGetLastError();
    return;
  }
  state_ = new State{timeout};
  if (runtime.cudaLaunchHostFunc(stream, &StreamGate::hold, state_) != cudaSuccess) {
    runtime.cudaGetLastError();
    delete state_;
    state_ = nullptr;
  }
}

StreamGate::~StreamGate() {
  if (!state_) return;
  open();
  drop(state_);
}

void StreamGate::open() {
  int closed = kClosed;
  if (state_) state_->phase.compare_exchange_strong(closed, kOpened, std::memory_order_acq_rel);
}

bool StreamGate::timed_out() const {
  return state_ && state_->phase.load(std::memory_order_acquire) == kTimedOut;
}

// On CUDA's host-function thread: the host issues a few calls behind the gate (microseconds),
// so it waits spinning, yielding the core to the issuing thread where they share one.
void StreamGate::hold(void* opaque) {
  auto* state = static_cast<State*>(opaque);
  const auto until = std::chrono::steady_clock::now() + state->timeout;
  while (state->phase.load(std::memory_order_acquire) == kClosed) {
    if (std::chrono::steady_clock::now() >= until) {
      // Opened meanwhile (the host was only late to be seen): then not timed out.
      int closed = kClosed;
      state->phase.compare_exchange_strong(closed, kTimedOut, std::memory_order_acq_rel);
      break;
    }
    std::this_thread::yield();
  }
  drop(state);
}

void StreamGate::drop(State* state) {
  if (state->owners.fetch_sub(1, std::memory_order_acq_rel) == 1) delete state;
}

}  // namespace ucudnn::cudnn
