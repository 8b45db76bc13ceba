#pragma once
// A call that comes back into ucudnn from inside ucudnn's own call to cuDNN, on the same thread:
// from inside an interposed function, or from ucudnn's own work outside one (a thread's cached
// plans destroyed when it ends, cudnn/real_call_clock.h's RealCallScope).
// Neither ucudnn's code nor cuDNN's libraries call ucudnn's exports (cuDNN's are -Bsymbolic), so
// such a call comes from a tool between ucudnn and cuDNN that hands ucudnn's call back to it: a
// tracer that hooks dlsym and takes cuDNN's functions from cuDNN's handle, which ucudnn's
// auditor answers with the shim's. Planned again, it would call the tool again, without end
// (or wait forever on a lock ucudnn's outer call holds). It goes straight to cuDNN's own
// definition instead, read from the library's symbol table past every tool: the tool still
// sees each call ucudnn makes to cuDNN, once.
#include <cudnn.h>

#include "cudnn/real_call_clock.h"
#include "shim/host_time_account.h"

namespace ucudnn::shim {

// Opened first by every interposed function: whether the thread is already inside one.
class Reentry {
 public:
  Reentry() : nested_(depth_++ > 0 || cudnn::RealCallClock::inside_real_call()) {}
  ~Reentry() { --depth_; }
  Reentry(const Reentry&) = delete;
  Reentry& operator=(const Reentry&) = delete;
  bool nested() const { return nested_; }

 private:
  static thread_local int depth_;
  bool nested_;
};

// cuDNN's own definition of an interposed function; nullptr where cuDNN has none.
void* cudnn_own_function(EntryPoint entry);

// Says once per process, at the info level, which function came back and from which object.
void note_reentry(EntryPoint entry, const void* caller);

template <typename Function, typename... Arguments>
cudnnStatus_t pass_to_cudnn(EntryPoint entry, const void* caller, Arguments... arguments) {
  note_reentry(entry, caller);
  const auto own = reinterpret_cast<Function>(cudnn_own_function(entry));
  return own ? own(arguments...) : CUDNN_STATUS_NOT_INITIALIZED;
}

}  // namespace ucudnn::shim
