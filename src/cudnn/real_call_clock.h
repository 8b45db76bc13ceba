#pragma once
// The time a thread spends inside the real cuDNN and CUDA runtime, for the shim's host-time
// account (shim/host_time_account.h): while the account counts an interposed call on a thread,
// every RealCallScope on that thread adds the time it encloses; the rest of the call is
// ucudnn's own work. When nothing counts (the account is off), a scope costs a thread-local
// increment and decrement: whether the thread is inside ucudnn's call into cuDNN is always known
// (a call that comes back into the shim from there goes straight to cuDNN: shim/reentry.h).
// Nested scopes count once.
#include <chrono>
#include <cstdint>

namespace ucudnn::cudnn {

// A thread's scopes (RealCallClock's).
struct RealCallState {
  bool counting = false;
  int inside = 0;  // scopes open, counted or not
  int depth = 0;   // counted scopes open
  std::uint64_t nanoseconds = 0;
};

class RealCallClock {
 public:
  // Between these, this thread's scopes count.
  static void start_counting() {
    state_.counting = true;
    state_.nanoseconds = 0;
  }
  // What the scopes counted since start_counting.
  static std::uint64_t stop_counting() {
    state_.counting = false;
    return state_.nanoseconds;
  }
  // Whether this thread is inside a RealCallScope.
  static bool inside_real_call() { return state_.inside > 0; }
  static std::uint64_t now() {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count());
  }

 private:
  friend class RealCallScope;
  using State = RealCallState;
  // Defined here, constant-initialized: each translation unit reaches it directly, not through a
  // TLS wrapper of another unit's (which GCC's UndefinedBehaviorSanitizer takes for a null
  // pointer in a test that reads the clock itself).
  static inline thread_local State state_{};
};

// Encloses calls into the real cuDNN or CUDA runtime.
class RealCallScope {
 public:
  RealCallScope() {
    auto& s = RealCallClock::state_;
    ++s.inside;
    if (!s.counting) return;
    counted_ = true;
    if (s.depth++ == 0) start_ = RealCallClock::now();
  }
  ~RealCallScope() {
    auto& s = RealCallClock::state_;
    --s.inside;
    if (!counted_) return;
    if (--s.depth == 0) s.nanoseconds += RealCallClock::now() - start_;
  }
  RealCallScope(const RealCallScope&) = delete;
  RealCallScope& operator=(const RealCallScope&) = delete;

 private:
  bool counted_ = false;
  std::uint64_t start_ = 0;
};

}  // namespace ucudnn::cudnn
