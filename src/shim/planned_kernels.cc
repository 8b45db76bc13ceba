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

void PlannedKernels::held(std::uint64_t bytes, std::uint64_t total) {
  std::lock_guard lock(mutex_);
  peak_held_ = std::max(peak_held_, bytes);
  division_total_ = std::max(division_total_, total);
}

PlannedKernels::Summary PlannedKernels::summary() const {
  std::lock_guard lock(mutex_);
  Summary s;
  s.peak_held = peak_held_;
  s.division_total = division_total_;
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
  if (s.kernels == 0 && s.peak_held == 0) return {};
  std::string line = "GPU " + std::to_string(device) + ": ";
  char text[320];
  if (s.kernels > 0) {
    std::snprintf(text, sizeof text,
                  "%zu kernels planned; planned convolution time %.6g ms against %.6g ms for the "
                  "best undivided candidates within the limit (%.2fx), each kernel once%s; the "
                  "largest workspace a plan needs: %s",
                  s.kernels, s.plan_ms, s.undivided_ms,
                  s.plan_ms > 0 ? s.undivided_ms / s.plan_ms : 1.0,
                  s.without_undivided ? " (not counting the kernels where none fits)" : "",
                  format_byte_size(s.largest_workspace).c_str());
    line += text;
  }
  if (s.peak_held > 0) {
    line += s.kernels > 0 ? "; " : "";
    line += "the most workspace division held at once: " + format_byte_size(s.peak_held) + " of " +
            format_byte_size(s.division_total);
  }
  return line;
}

}  // namespace ucudnn::shim
