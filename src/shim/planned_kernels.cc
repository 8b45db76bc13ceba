#include "shim/planned_kernels.h"

#include <algorithm>
#include <cstdio>

#include "user_input/byte_size.h"

namespace ucudnn::shim {

void PlannedKernels::record(const std::string& kernel, double plan_ms,
                            std::optional<double> undivided_ms, std::uint64_t workspace_bytes) {
  std::lock_guard lock(mutex_);
  kernels_[kernel] = {plan_ms, undivided_ms, workspace_bytes};
}

PlannedKernels::Summary PlannedKernels::summary() const {
  std::lock_guard lock(mutex_);
  Summary s;
  s.kernels = kernels_.size();
  for (const auto& [kernel, e] : kernels_) {
    s.largest_workspace = std::max(s.largest_workspace, e.workspace_bytes);
    if (!e.undivided_ms) {
      ++s.without_undivided;
      continue;
    }
    s.plan_ms += e.plan_ms;
    s.undivided_ms += *e.undivided_ms;
  }
  return s;
}

std::string PlannedKernels::line(int device, const Summary& s) {
  if (s.kernels == 0) return {};
  char text[320];
  std::snprintf(text, sizeof text,
                "GPU %d: %zu kernels planned; planned convolution time %.6g ms against %.6g ms for "
                "the best undivided candidates within the limit (%.2fx), each kernel once%s; the "
                "largest workspace a plan needs: %s",
                device, s.kernels, s.plan_ms, s.undivided_ms,
                s.plan_ms > 0 ? s.undivided_ms / s.plan_ms : 1.0,
                s.without_undivided ? " (not counting the kernels where none fits)" : "",
                format_byte_size(s.largest_workspace).c_str());
  return text;
}

}  // namespace ucudnn::shim
