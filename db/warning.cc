#include "db/warning.h"

#include <cstdio>
#include <utility>

namespace ucudnn {

void warn_on_stderr(const std::string& message) {
  // One fprintf call, so that lines of several threads or processes do not interleave.
  std::fprintf(stderr, "ucudnn: warning: %s\n", message.c_str());
}

void notice_on_stderr(const std::string& message) {
  std::fprintf(stderr, "ucudnn: %s\n", message.c_str());
}

HeldWarnings::HeldWarnings(WarningSink to) : state_(std::make_shared<State>()) {
  state_->to = std::move(to);
}

WarningSink HeldWarnings::sink() const {
  return [state = state_](const std::string& message) {
    if (state->holding)
      state->held.push_back(message);
    else
      state->to(message);
  };
}

void HeldWarnings::release(const std::function<std::string(std::string)>& rewrite) const {
  state_->holding = false;
  for (auto& message : state_->held) state_->to(rewrite ? rewrite(std::move(message)) : message);
  state_->held.clear();
}

}  // namespace ucudnn
