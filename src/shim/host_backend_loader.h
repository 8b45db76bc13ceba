#pragma once
// Finds and loads the CPU backend plugin (libucudnn_host.so, core/host_backend.h) from the
// folder of the shim's own library, privately (RTLD_LOCAL): its libraries never take part in
// the application's symbol lookups.
#include <string>

#include "core/host_backend.h"

namespace ucudnn::shim {

// The plugin's backend, or nullptr with why in `error`. Loads at most once per call; the
// registry calls it once per process.
HostBackend* load_host_backend(std::string& error);

}  // namespace ucudnn::shim
