#pragma once
// Which of the execution plans made from one operation graph ucudnn runs. An autotuning
// framework (PyTorch's cudnn.benchmark, cudnn-frontend's autotune, XLA) finalizes a plan for
// each engine configuration of a graph, times each and keeps the fastest: ucudnn must be one
// more candidate among cuDNN's, never all of them, so that the application's own measurement
// still chooses. The first of a graph's plans to execute holds the graph's claim while it lives
// and runs ucudnn's plan; the others run cuDNN's engine. A plan that once ran as cuDNN's stays
// cuDNN's, even after the holder is destroyed, so that what the application timed is what it
// gets. Graphs of their own (two layers of the same shape) each have a claim. Lock-free: taken
// at every Execute.
#include <atomic>

namespace ucudnn::shim::backend {

class GraphClaim {
 public:
  // Whether ucudnn runs `plan` (the caller's execution plan, at Execute). `ceded`: the plan's
  // own flag, set once the plan ran as cuDNN's.
  bool take(const void* plan, std::atomic<bool>& ceded) {
    if (ceded.load(std::memory_order_relaxed)) return false;
    const void* holder = holder_.load(std::memory_order_acquire);
    if (holder == plan) return true;
    if (!holder && holder_.compare_exchange_strong(holder, plan, std::memory_order_acq_rel))
      return true;
    ceded.store(true, std::memory_order_relaxed);
    return false;
  }

  // When `plan` is destroyed (or emptied): the graph's next plan to execute may take it.
  void release(const void* plan) {
    const void* expected = plan;
    holder_.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
  }

 private:
  std::atomic<const void*> holder_{nullptr};
};

}  // namespace ucudnn::shim::backend
