#include "shim/planned_kernels.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

namespace {

std::uint64_t value(const PlannedKernels::RunCount& runs) {
  return runs->value.load(std::memory_order_relaxed);
}

// The runs taken as one iteration: the least among kernels run at least an eighth of the
// median (planned_kernels.h); 0 where none ran.
std::uint64_t iteration_runs(std::vector<std::uint64_t> counts) {
  if (counts.empty()) return 0;
  std::sort(counts.begin(), counts.end());
  const std::uint64_t floor = std::max<std::uint64_t>(1, counts[counts.size() / 2] / 8);
  return *std::lower_bound(counts.begin(), counts.end(), floor);
}

// Where the plans' measurements came from: a warm run measures nothing.
std::string origin(const PlannedKernels::Summary& s) {
  const std::size_t stored = s.kernels - s.measured_in_this_run;
  if (stored == 0) return s.kernels == 1 ? "measured in this run" : "all measured in this run";
  if (s.measured_in_this_run == 0)
    return s.kernels == 1 ? "planned from the database's measurements, measuring nothing"
                          : "all planned from the database's measurements, measuring nothing";
  return std::to_string(s.measured_in_this_run) + " measured in this run, " +
         std::to_string(stored) + " planned from the database's measurements";
}

}  // namespace

std::uint64_t PlannedKernels::Entry::runs() const {
  std::uint64_t total = retired_runs;
  for (const auto& e : executors) total += value(e.runs);
  return total;
}

std::uint64_t PlannedKernels::Entry::workspace_used() const {
  std::uint64_t used = retired_workspace;
  for (const auto& e : executors)
    if (value(e.runs) > 0) used = std::max(used, e.workspace_bytes);
  return used;
}

void PlannedKernels::record(const std::string& kernel, double plan_ms,
                            std::optional<double> undivided_ms, std::uint64_t workspace_bytes,
                            RunCount runs, bool split_with_host) {
  std::lock_guard lock(mutex_);
  Entry& entry = kernels_[kernel];
  entry.plan_ms = plan_ms;
  entry.split_with_host = split_with_host;
  entry.undivided_ms = undivided_ms;
  entry.workspace_bytes = workspace_bytes;
  // A count only the account holds belongs to an executor that is gone: its runs are final.
  std::erase_if(entry.executors, [&](const Executor& e) {
    if (e.runs.use_count() > 1) return false;
    const std::uint64_t ran = value(e.runs);
    entry.retired_runs += ran;
    if (ran > 0) entry.retired_workspace = std::max(entry.retired_workspace, e.workspace_bytes);
    return true;
  });
  if (!runs) return;
  const bool known = std::any_of(entry.executors.begin(), entry.executors.end(),
                                 [&](const Executor& e) { return e.runs == runs; });
  if (!known) entry.executors.push_back({std::move(runs), workspace_bytes});
}

void PlannedKernels::held(std::uint64_t bytes, std::uint64_t total) {
  std::lock_guard lock(mutex_);
  peak_held_ = std::max(peak_held_, bytes);
  division_total_ = std::max(division_total_, total);
}

PlannedKernels::Summary PlannedKernels::summary(
    const std::set<std::string>& measured_in_this_run) const {
  std::lock_guard lock(mutex_);
  Summary s;
  s.peak_held = peak_held_;
  s.division_total = division_total_;
  s.kernels = kernels_.size();
  // Read once: the counts may still move while the summary is made.
  std::map<const Entry*, std::uint64_t> runs;
  std::vector<std::uint64_t> counts;
  for (const auto& [kernel, e] : kernels_) {
    if (const std::uint64_t n = runs[&e] = e.runs(); n > 0) counts.push_back(n);
    s.split_with_host += e.split_with_host ? 1 : 0;
    s.measured_in_this_run += measured_in_this_run.count(kernel);
  }
  s.kernels_run = counts.size();
  s.iterations = iteration_runs(std::move(counts));
  for (const auto& [kernel, e] : kernels_) {
    const std::uint64_t n = runs[&e];
    if (s.iterations > 0 && n == 0) continue;  // planned, served no call: not in an iteration
    s.largest_workspace =
        std::max(s.largest_workspace, s.iterations > 0 ? e.workspace_used() : e.workspace_bytes);
    if (!e.undivided_ms) {
      ++s.without_undivided;
      continue;
    }
    const double weight =
        s.iterations > 0 ? static_cast<double>(n) / static_cast<double>(s.iterations) : 1.0;
    s.plan_ms += weight * e.plan_ms;
    s.undivided_ms += weight * *e.undivided_ms;
  }
  return s;
}

std::string PlannedKernels::line(int device, const Summary& s) {
  if (s.kernels == 0 && s.peak_held == 0) return {};
  std::string line = "GPU " + std::to_string(device) + ": ";
  char text[768];
  if (s.kernels > 0) {
    const std::size_t counted = s.iterations > 0 ? s.kernels_run : s.kernels;
    char over[200];
    char split[64] = "";
    if (s.split_with_host > 0)
      std::snprintf(split, sizeof split, " (%zu split with the CPU)", s.split_with_host);
    if (s.iterations > 0)
      std::snprintf(over, sizeof over,
                    "per iteration, over the %s whose calls ran ucudnn's plans (the "
                    "least-run kernel ran %llu time%s, taken as once per iteration)",
                    ucudnn::counted(s.kernels_run, "kernel").c_str(),
                    static_cast<unsigned long long>(s.iterations), s.iterations == 1 ? "" : "s");
    else
      std::snprintf(over, sizeof over,
                    "each kernel once (no call has run one of these plans: cuDNN's own engines "
                    "ran every call, or none came)");
    // Under WD each kernel runs within its segment of the division (or what the division leaves
    // beside it), and its baseline is the best undivided candidate within as much.
    const char* within = s.division_total > 0 ? "the workspace each kernel was given" : "the limit";
    if (s.without_undivided == counted)
      std::snprintf(text, sizeof text,
                    "%s planned%s; none of the %zu counted, %s, has an undivided "
                    "candidate within %s; the most workspace a planned call %s: %s",
                    ucudnn::counted(s.kernels, "kernel").c_str(), split, counted, over, within,
                    s.iterations > 0 ? "used" : "needs",
                    format_byte_size(s.largest_workspace).c_str());
    else
      std::snprintf(text, sizeof text,
                    "%s planned%s; planned convolution time %.6g ms against %.6g ms for "
                    "the best undivided candidates within %s (%.2fx), %s%s; the most "
                    "workspace a planned call %s: %s",
                    ucudnn::counted(s.kernels, "kernel").c_str(), split, s.plan_ms, s.undivided_ms,
                    within, s.plan_ms > 0 ? s.undivided_ms / s.plan_ms : 1.0, over,
                    s.without_undivided ? " (not counting the kernels where none fits)" : "",
                    s.iterations > 0 ? "used" : "needs",
                    format_byte_size(s.largest_workspace).c_str());
    line += text;
    line += "; " + origin(s);
  }
  if (s.peak_held > 0) {
    line += s.kernels > 0 ? "; " : "";
    line += "the most workspace division held at once: " + format_byte_size(s.peak_held) + " of " +
            format_byte_size(s.division_total);
  }
  return line;
}

}  // namespace ucudnn::shim
