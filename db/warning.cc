#include "db/warning.h"

#include <cstdio>

namespace ucudnn {

void warn_on_stderr(const std::string& message) {
  // One fprintf call, so that lines of several threads or processes do not interleave.
  std::fprintf(stderr, "ucudnn: warning: %s\n", message.c_str());
}

void notice_on_stderr(const std::string& message) {
  std::fprintf(stderr, "ucudnn: %s\n", message.c_str());
}

}  // namespace ucudnn
