#pragma once
// While a single `ucudnn bench` process stores each item as it is measured: Ctrl-C (SIGINT) or a
// scheduler's SIGTERM says what was kept and what to do, then ends the process as the signal
// would have. The handler writes one preformatted line (async-signal-safe: no allocation, no
// stdio) and re-raises the signal with its default action.
#include <cstddef>

namespace ucudnn::cli {

class InterruptionNotice {
 public:
  explicit InterruptionNotice(const char* command);  // "bench"
  ~InterruptionNotice();                             // the previous handlers back
  InterruptionNotice(const InterruptionNotice&) = delete;
  InterruptionNotice& operator=(const InterruptionNotice&) = delete;

  // Another item is in the database.
  void stored();
};

}  // namespace ucudnn::cli
