#include "plan_check.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "user_input/duration.h"

namespace ucudnn::cli {

namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t half = values.size() / 2;
  return values.size() % 2 ? values[half] : 0.5 * (values[half - 1] + values[half]);
}

std::string comparison_text(const std::optional<OutputComparison>& outputs) {
  if (!outputs) return "not compared (data type)";
  char text[96];
  std::snprintf(text, sizeof text, "%9.1e (tolerance %.0e) %s", outputs->difference,
                outputs->tolerance, outputs->agrees() ? "ok" : "DIFFERS");
  return text;
}

}  // namespace

PlanCheckSummary check_plans(std::FILE* out, Worker& worker,
                             const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan,
                             int repeats) {
  // The check takes a while: said on stderr where the table's header, which says the same,
  // goes to a file or a pipe instead of the terminal.
  if (!isatty(fileno(out)))
    std::fprintf(stderr,
                 "checking plans: running each plan and its undivided baseline for real on the "
                 "same inputs\n");
  // The labels' column as wide as the longest ("res2_3x3 BackwardFilter").
  int width = 20;
  for (const auto& [first, uses] : plan.distinct)
    width = std::max(width, static_cast<int>(kernels[first].label().size()));
  std::fprintf(out,
               "\nplan check: each plan and its fastest undivided algorithm, run for real on the "
               "same inputs\n%-*s | %9s %9s %6s | %9s %9s %6s | %s\n",
               width, "layer operation", "plan ms", "measured", "ratio", "undivided", "measured",
               "ratio", "output difference");
  std::fflush(out);
  PlanCheckSummary summary;
  std::vector<double> deviations;
  std::string off, disagreeing;
  worker.enter_thread();
  for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
    const KernelPlan& p = plan.plans[d];
    if (!p.plan || !p.undivided) continue;
    const NetworkKernel& kernel = kernels[plan.distinct[d].first];
    const auto runs =
        worker.run_side_by_side(kernel.key, *p.plan, Configuration{{*p.undivided}}, repeats);
    if (!runs) {
      ++summary.could_not_run;
      std::fprintf(out, "%-*s | could not run (memory, or the device refused)\n", width,
                   kernel.label().c_str());
      continue;
    }
    ++summary.checked;
    const double planned = p.plan->time_ms(), undivided_planned = p.undivided->time_ms;
    const double ratio = runs->plan_ms / planned;
    std::fprintf(out, "%-*s | %9s %9s %6.2f | %9s %9s %6.2f | %s\n", width, kernel.label().c_str(),
                 format_milliseconds_number(planned).c_str(),
                 format_milliseconds_number(runs->plan_ms).c_str(), ratio,
                 format_milliseconds_number(undivided_planned).c_str(),
                 format_milliseconds_number(runs->baseline_ms).c_str(),
                 runs->baseline_ms / undivided_planned, comparison_text(runs->outputs).c_str());
    deviations.push_back(std::abs(ratio - 1));
    if (std::abs(ratio - 1) > kPredictionWarningFraction) {
      char item[96];
      std::snprintf(item, sizeof item, "%s%s (%.2fx)", off.empty() ? "" : ", ",
                    kernel.label().c_str(), ratio);
      off += item;
    }
    if (runs->outputs && !runs->outputs->agrees()) {
      ++summary.disagreeing;
      disagreeing += (disagreeing.empty() ? "" : ", ") + kernel.label();
    }
    const auto uses = static_cast<double>(plan.distinct[d].uses.size());
    summary.plan_ms += runs->plan_ms * uses;
    summary.undivided_ms += runs->baseline_ms * uses;
  }
  summary.predicted_vs_measured = median(deviations);
  std::fprintf(out, "WR total, run for real side by side: plan %s vs best undivided %s: %.2fx",
               format_milliseconds(summary.plan_ms).c_str(),
               format_milliseconds(summary.undivided_ms).c_str(),
               summary.plan_ms > 0 ? summary.undivided_ms / summary.plan_ms : 1.0);
  if (summary.could_not_run)
    std::fprintf(out, " (%zu kernels could not run)", summary.could_not_run);
  std::fprintf(out,
               "\npredicted vs measured: median |measured/planned - 1| = %.1f%% over %zu plans\n",
               100 * summary.predicted_vs_measured, summary.checked);
  if (!off.empty())
    std::fprintf(out, "warning: measured more than %.0f%% off the plan: %s\n",
                 100 * kPredictionWarningFraction, off.c_str());
  if (!disagreeing.empty())
    std::fprintf(out,
                 "error: the plan's output differs from its undivided baseline's beyond the "
                 "stated tolerance: %s\n",
                 disagreeing.c_str());
  else if (summary.checked)
    std::fprintf(out, "outputs: every plan agrees with its undivided baseline\n");
  return summary;
}

}  // namespace ucudnn::cli
