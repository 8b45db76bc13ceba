#pragma once
// How every `ucudnn` command ends: its exit statuses, and errors on stderr prefixed with the
// command ("ucudnn plan: ...") so that a script running several knows which one spoke.
#include <cstdio>
#include <string>

namespace ucudnn::cli {

constexpr int kFailure = 1;
constexpr int kUsageError = 2;

inline void report_error(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "ucudnn %s: %s\n", command.c_str(), message.c_str());
}

}  // namespace ucudnn::cli
