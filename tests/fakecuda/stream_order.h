#pragma once
// Stream order in the runtime double. Work issued to a stream is queued, not run, and runs
// only when the host waits for it (a stream, event or device synchronization, a synchronous
// copy, a free), as on a GPU where the host runs ahead: a library that reads results before
// it synchronizes, or forgets the event between two streams, sees stale memory in tests
// instead of getting lucky. An item runs after its stream's earlier items, after the events
// its stream waited for, and in the legacy default stream's order with blocking streams
// (cudaStreamNonBlocking streams are exempt). The queue is bounded as a GPU's launch queue:
// past kMaxPending items the oldest runs when more is issued.
//
// Work may name memory it uses as scratch (a kernel's workspace): issued while earlier work
// on another stream uses overlapping memory and is not ordered before it, the two would race
// on a GPU; enqueue reports it.
//
// Work must not call the runtime (CUDA forbids it in host functions); an attempt is refused
// with cudaErrorNotPermitted (running_work()).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ucudnn::fakecuda {

// Memory a work item uses as scratch: [begin, end).
struct ScratchRange {
  std::uintptr_t begin = 0, end = 0;
};

class StreamOrder {
 public:
  using Work = std::function<void()>;
  static constexpr std::size_t kMaxPending = 1024;

  void set_non_blocking(cudaStream_t stream);
  // False when `scratch` overlaps the scratch of pending work that is not ordered before it.
  bool enqueue(cudaStream_t stream, Work work, ScratchRange scratch = {});
  // The event completes when the stream's work issued so far has run.
  void record(cudaEvent_t event, cudaStream_t stream);
  // The stream's later work runs after the event's.
  void wait(cudaStream_t stream, cudaEvent_t event);

  bool stream_pending(cudaStream_t stream) const;
  bool event_pending(cudaEvent_t event) const;

  // Runs what the host waits for, with everything it depends on.
  void finish_stream(cudaStream_t stream);
  void finish_event(cudaEvent_t event);
  void finish_all();

  void forget_stream(cudaStream_t stream);
  void forget_event(cudaEvent_t event);

  // True on the thread running queued work.
  static bool running_work();

 private:
  struct Item {
    std::uint64_t id;
    cudaStream_t stream;
    Work work;
    std::vector<std::uint64_t> after;
    ScratchRange scratch;
  };
  static cudaStream_t key(cudaStream_t stream);
  bool blocking(cudaStream_t key) const;
  std::uint64_t push(cudaStream_t key, Work work, std::vector<std::uint64_t> after,
                     ScratchRange scratch = {}, bool* raced = nullptr);
  template <typename IsTarget>
  void finish(IsTarget is_target);
  void run(Item& item);

  mutable std::mutex mutex_;
  std::deque<Item> pending_;  // in issue order; every item's `after` ids are older
  std::uint64_t next_id_ = 1;
  std::unordered_map<cudaStream_t, std::uint64_t> last_on_stream_;
  std::unordered_map<cudaEvent_t, std::uint64_t> events_;
  std::unordered_set<cudaStream_t> non_blocking_;
};

}  // namespace ucudnn::fakecuda
