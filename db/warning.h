#pragma once
// Where the db code's warnings go. The stores warn instead of failing (a training job is
// never stopped by its cache), and each store says a thing once, not per lookup.
#include <functional>
#include <string>

namespace ucudnn {

// Receives the message without the "ucudnn: warning: " prefix.
using WarningSink = std::function<void(const std::string& message)>;

// Writes "ucudnn: warning: <message>" and a newline to stderr.
void warn_on_stderr(const std::string& message);
// Writes "ucudnn: <message>" and a newline to stderr: news, not a problem (what a command
// is waiting for).
void notice_on_stderr(const std::string& message);

}  // namespace ucudnn
