#pragma once
// Which of the execution plans made from one operation graph ucudnn runs. An autotuning
// framework (PyTorch's cudnn.benchmark, cudnn-frontend's autotune, XLA) finalizes a plan for
// each engine configuration of a graph, times each and keeps the fastest: ucudnn must be one
// more candidate among cuDNN's, never all of them, so that the application's own measurement
// still chooses. The first of a graph's plans whose workspace the application reads, or that it
// executes, holds the graph's claim while it lives: it answers ucudnn's workspace and runs
// ucudnn's plan; the others answer and run their engine's. A framework under memory pressure
// passes over a plan whose workspace it cannot allocate and tries the next engine: that one is
// then cuDNN's, as it would be alone, instead of answering ucudnn's workspace again.
//
// A plan that once ran, or answered, as cuDNN's stays cuDNN's, even after the holder is
// destroyed, so that what the application timed is what it gets. When a holder that executed
// goes, the graph's next plan may take the claim. One that never executed after answering more
// workspace than its engine needs was passed over (the application could not, or would not,
// allocate it): the graph's later plans are cuDNN's, so that a framework that destroys each plan
// it cannot allocate before it builds the next still finds the engines it would run alone.
// Graphs of their own (two layers of the same shape) each have a claim. Lock-free: taken at
// every Execute.
#include <atomic>
#include <cstdint>

namespace ucudnn::shim::backend {

class GraphClaim {
 public:
  // Whether ucudnn runs `plan` (the caller's execution plan) at this Execute. `ceded`: the
  // plan's own flag, set once the plan ran or answered as cuDNN's.
  bool take(const void* plan, std::atomic<bool>& ceded) { return hold(plan, ceded, kExecuted); }

  // Whether `plan` answers ucudnn's workspace when the application reads it; `larger`: that
  // answer is more than the plan's engine needs.
  bool answer(const void* plan, std::atomic<bool>& ceded, bool larger) {
    return hold(plan, ceded, larger ? kAnsweredLarger : 0);
  }

  // `plan` ran by other means (cuDNN recorded it into a CUDA graph natively): if it holds the
  // claim, it was not passed over.
  void ran(const void* plan) {
    std::uintptr_t state = state_.load(std::memory_order_acquire);
    while ((state & kPlanBits) == address(plan) && !(state & kExecuted))
      if (state_.compare_exchange_weak(state, state | kExecuted, std::memory_order_acq_rel)) return;
  }

  // When `plan` is destroyed (or emptied). True where that leaves the graph's later plans to
  // cuDNN (the holder was passed over).
  bool release(const void* plan) {
    std::uintptr_t state = state_.load(std::memory_order_acquire);
    while ((state & kPlanBits) == address(plan)) {
      const bool passed_over = (state & kAnsweredLarger) && !(state & kExecuted);
      if (state_.compare_exchange_weak(state, passed_over ? kSpent : kFree,
                                       std::memory_order_acq_rel))
        return passed_over;
    }
    return false;
  }

 private:
  // The holder's address, with what it did in the low bits (execution plans are at least
  // 4-aligned); kSpent is no address.
  static constexpr std::uintptr_t kFree = 0, kExecuted = 1, kAnsweredLarger = 2, kSpent = 4;
  static constexpr std::uintptr_t kPlanBits = ~(kExecuted | kAnsweredLarger);

  static std::uintptr_t address(const void* plan) { return reinterpret_cast<std::uintptr_t>(plan); }

  bool hold(const void* plan, std::atomic<bool>& ceded, std::uintptr_t did) {
    if (ceded.load(std::memory_order_relaxed)) return false;
    std::uintptr_t state = state_.load(std::memory_order_acquire);
    for (;;) {
      const bool holder = (state & kPlanBits) == address(plan);
      if (!holder && state != kFree) break;
      const std::uintptr_t next = holder ? state | did : address(plan) | did;
      if (next == state || state_.compare_exchange_weak(state, next, std::memory_order_acq_rel))
        return true;
    }
    ceded.store(true, std::memory_order_relaxed);
    return false;
  }

  std::atomic<std::uintptr_t> state_{kFree};
};

}  // namespace ucudnn::shim::backend
