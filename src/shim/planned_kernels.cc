#include "shim/planned_kernels.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "user_input/byte_size.h"

namespace ucudnn::shim {

void PlannedKernels::record(const std::string& kernel, double plan_ms,
                            std::optional<double> undivided_ms, std::uint64_t workspace_bytes,
                            RunCount runs) {
  std::lock_guard lock(mutex_);
  kernels_[kernel] = {plan_ms, undivided_ms, workspace_bytes, std::move(runs)};
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
  auto runs_of = [](const Entry& e) -> std::uint64_t {
    return e.runs ? e.runs->load(std::memory_order_relaxed) : 0;
  };
  std::uint64_t least = std::numeric_limits<std::uint64_t>::max();
  for (const auto& [kernel, e] : kernels_)
    if (const auto runs = runs_of(e); runs > 0) {
      ++s.kernels_run;
      least = std::min(least, runs);
    }
  s.iterations = s.kernels_run > 0 ? least : 0;
  for (const auto& [kernel, e] : kernels_) {
    const std::uint64_t runs = runs_of(e);
    if (s.iterations > 0 && runs == 0) continue;  // planned, never run: not in an iteration
    s.largest_workspace = std::max(s.largest_workspace, e.workspace_bytes);
    if (!e.undivided_ms) {
      ++s.without_undivided;
      continue;
    }
    const double weight = s.iterations > 0 ? static_cast<double>(runs) / s.iterations : 1.0;
    s.plan_ms += weight * e.plan_ms;
    s.undivided_ms += weight * *e.undivided_ms;
  }
  return s;
}

std::string PlannedKernels::line(int device, const Summary& s) {
  if (s.kernels == 0 && s.peak_held == 0) return {};
  std::string line = "GPU " + std::to_string(device) + ": ";
  char text[512];
  if (s.kernels > 0) {
    char weighting[160];
    if (s.iterations > 0)
      std::snprintf(weighting, sizeof weighting,
                    "per iteration (%zu kernels ran, the least-run %llu times: each kernel "
                    "weighs its runs over that)",
                    s.kernels_run, static_cast<unsigned long long>(s.iterations));
    else
      std::snprintf(weighting, sizeof weighting, "each kernel once (no plan has run)");
    std::snprintf(
        text, sizeof text,
        "%zu kernels planned; planned convolution time %.6g ms against %.6g ms for the "
        "best undivided candidates within the limit (%.2fx), %s%s; the most workspace "
        "a planned call %s: %s",
        s.kernels, s.plan_ms, s.undivided_ms, s.plan_ms > 0 ? s.undivided_ms / s.plan_ms : 1.0,
        weighting, s.without_undivided ? " (not counting the kernels where none fits)" : "",
        s.iterations > 0 ? "used" : "needs", format_byte_size(s.largest_workspace).c_str());
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
