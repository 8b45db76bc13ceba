#pragma once
// Process- and thread-wide state of the cuDNN double: the one "fakecuda loaded" trace line
// per process (so a test can tell the double, not the real cuDNN, was loaded) and the
// calling thread's last error message (cudnnGetLastErrorString).
#include <string>

namespace ucudnn::fakecuda {

// Writes "fakecuda loaded pid=<pid>" the first time it is called with tracing on.
void announce_load();

void set_last_error_message(std::string message);
const std::string& last_error_message();

}  // namespace ucudnn::fakecuda
