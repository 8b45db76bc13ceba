#include "shim/reentry.h"

#include <dlfcn.h>

#include <atomic>
#include <string>

#include "cudnn/cudnn_api.h"
#include "shim/log.h"

namespace ucudnn::shim {

thread_local int Reentry::depth_ = 0;

namespace {

std::atomic<void*> own_functions[kEntryPoints];
std::atomic<bool> reentry_noted{false};

}  // namespace

void* cudnn_own_function(EntryPoint entry) {
  auto& slot = own_functions[static_cast<int>(entry)];
  if (void* known = slot.load(std::memory_order_acquire)) return known;
  void* function = cudnn::cudnn_own_symbol(entry_point_name(entry));
  if (function)
    slot.store(function, std::memory_order_release);
  else
    warn_once(std::string("no-own-definition:") + entry_point_name(entry),
              std::string("cuDNN's library defines no ") + entry_point_name(entry) +
                  ": a call a tool hands back to ucudnn fails with CUDNN_STATUS_NOT_INITIALIZED");
  return function;
}

void note_reentry(EntryPoint entry, const void* caller) {
  // Said once, where it is said at all: not used up below the info level.
  if (!log_enabled(LogLevel::kInfo) || reentry_noted.load(std::memory_order_relaxed) ||
      reentry_noted.exchange(true))
    return;
  Dl_info info;
  const char* from = caller && dladdr(caller, &info) && info.dli_fname && *info.dli_fname
                         ? info.dli_fname
                         : "an object that cannot be named";
  log(LogLevel::kInfo, std::string(entry_point_name(entry)) + " came back into ucudnn from " +
                           from +
                           " while ucudnn was calling cuDNN: a tool between them hands ucudnn's "
                           "calls back to it; such calls go straight to cuDNN");
}

}  // namespace ucudnn::shim
