#include "cudnn_session.h"

#include <unistd.h>

#include <atomic>

#include "trace.h"

namespace ucudnn::fakecuda {

namespace {

std::atomic<bool> announced{false};
thread_local std::string last_message;

// At load when FAKECUDA_TRACE is already set; otherwise on the first call that traces.
__attribute__((constructor)) void announce_at_load() {
  announce_load();
}

}  // namespace

void announce_load() {
  if (announced.load(std::memory_order_relaxed) || !trace_enabled()) return;
  if (announced.exchange(true)) return;
  trace_line("fakecuda loaded pid=%d", static_cast<int>(::getpid()));
}

void set_last_error_message(std::string message) {
  last_message = std::move(message);
}

const std::string& last_error_message() {
  return last_message;
}

}  // namespace ucudnn::fakecuda
