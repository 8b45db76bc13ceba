#include "shim/process_exit.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

namespace ucudnn::shim {

namespace {

// Each piece of work beside the process that registered it: the child's copy of this table still
// names the parent. A fixed table read without a lock, so that a child ending while one of its
// parent's threads was registering at the fork does not wait for that thread.
struct Registration {
  pid_t process;
  void (*work)();
};
constexpr int kMostRegistrations = 16;
Registration registrations[kMostRegistrations];
std::atomic<int> registered{0};

std::atomic<bool> exiting{false};

void run_this_process_work() {
  exiting.store(true);
  const pid_t self = ::getpid();
  for (int i = registered.load(std::memory_order_acquire) - 1; i >= 0; --i)
    if (registrations[i].process == self) registrations[i].work();
}

}  // namespace

void at_exit_of_this_process(void (*work)()) {
  static std::mutex& writing = *new std::mutex;
  std::lock_guard lock(writing);
  const int index = registered.load(std::memory_order_relaxed);
  // Registered while the table runs (from an application's exit work: the C library still runs
  // what is registered then), or more call sites than the table holds: as atexit does.
  if (exiting.load() || index == kMostRegistrations) {
    std::atexit(work);
    return;
  }
  registrations[index] = {::getpid(), work};
  registered.store(index + 1, std::memory_order_release);
  if (index == 0) std::atexit(run_this_process_work);
}

}  // namespace ucudnn::shim
