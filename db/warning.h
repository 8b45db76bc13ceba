#pragma once
// Where the db code's warnings go. The stores warn instead of failing (a training job is
// never stopped by its cache), and each store says a thing once, not per lookup.
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ucudnn {

// Receives the message without the "ucudnn: warning: " prefix.
using WarningSink = std::function<void(const std::string& message)>;

// Writes "ucudnn: warning: <message>" and a newline to stderr.
void warn_on_stderr(const std::string& message);
// Writes "ucudnn: <message>" and a newline to stderr: news, not a problem (what a command
// is waiting for).
void notice_on_stderr(const std::string& message);

// Holds a store's warnings while it opens, until its opener knows what they mean for it (a tool
// that stops where the shim goes on uncached; ucudnnSetDatabase, which keeps the store in use);
// then says them, rewritten by release()'s `rewrite` where one is given, and later warnings as
// they come.
class HeldWarnings {
 public:
  explicit HeldWarnings(WarningSink to);
  WarningSink sink() const;
  void release(const std::function<std::string(std::string)>& rewrite = {}) const;

 private:
  struct State {
    WarningSink to;
    bool holding = true;
    std::vector<std::string> held;
  };
  std::shared_ptr<State> state_;
};

}  // namespace ucudnn
