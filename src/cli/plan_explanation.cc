#include "plan_explanation.h"

#include <algorithm>
#include <string>

#include "core/pareto_front.h"
#include "user_input/byte_size.h"
#include "user_input/duration.h"

namespace ucudnn::cli {

std::optional<Configuration> next_pareto_point(const KernelPlan& plan, std::uint64_t limit) {
  for (auto& configuration : desirable_configurations(plan.table))
    if (configuration.workspace_bytes() > limit) return configuration;
  return std::nullopt;
}

namespace {

// The full batch's measurements, fastest first.
std::vector<MicroConfiguration> undivided_by_time(const KernelPlan& plan) {
  if (plan.table.sizes.empty() || plan.table.sizes.back() != plan.table.batch) return {};
  auto undivided = plan.table.candidates.back();
  std::sort(undivided.begin(), undivided.end(), [](const auto& a, const auto& b) {
    return a.time_ms != b.time_ms ? a.time_ms < b.time_ms : a.algorithm < b.algorithm;
  });
  return undivided;
}

std::string described(const MicroConfiguration& m) {
  char text[160];
  std::snprintf(text, sizeof text, "%s %s (%s)", m.algorithm.c_str(),
                format_milliseconds(m.time_ms).c_str(),
                format_byte_size(m.workspace_bytes).c_str());
  return text;
}

std::string listed(const std::vector<MicroConfiguration>& micro) {
  std::string text;
  for (const auto& m : micro) text += (text.empty() ? "" : ", ") + described(m);
  return text.empty() ? "none" : text;
}

void explain_kernel(std::FILE* out, const std::string& label, const KernelPlan& p,
                    std::uint64_t limit) {
  std::vector<MicroConfiguration> fit, left_out;
  for (auto& m : undivided_by_time(p)) (m.workspace_bytes <= limit ? fit : left_out).push_back(m);
  std::fprintf(out, "%s\n", label.c_str());
  std::fprintf(out, "  undivided within %s: %s\n", format_byte_size(limit).c_str(),
               listed(fit).c_str());
  if (!left_out.empty())
    std::fprintf(out, "  undivided over the limit: %s\n", listed(left_out).c_str());
  if (p.unlimited)
    std::fprintf(out, "  baselines: best undivided within the limit %s; with no limit %s\n",
                 p.undivided ? described(*p.undivided).c_str() : "none",
                 described(*p.unlimited).c_str());
  if (!p.plan) {
    std::fprintf(out, "  no plan: %s\n", p.plan_error.c_str());
    if (!p.runnable()) return;  // no limit would change that
  } else {
    const Configuration& plan = *p.plan;
    std::fprintf(out, "  plan: %s, %s in %s, %zu micro-batch%s", plan.to_string().c_str(),
                 format_milliseconds(plan.time_ms()).c_str(),
                 format_byte_size(plan.workspace_bytes()).c_str(), plan.micro.size(),
                 plan.micro.size() == 1 ? "" : "es");
    if (fit.empty())
      std::fprintf(out, ": no undivided algorithm fits, micro-batches make the kernel run\n");
    else if (plan.micro.size() == 1)
      std::fprintf(out, ": the fastest undivided algorithm that fits\n");
    else
      std::fprintf(out, ": %.2fx faster than %s undivided\n", fit.front().time_ms / plan.time_ms(),
                   fit.front().algorithm.c_str());
  }
  if (const auto next = next_pareto_point(p, limit)) {
    const double now = p.plan ? p.plan->time_ms() : 0;
    std::fprintf(out, "  a larger limit: %s would give %s with %s",
                 format_byte_size_at_least(next->workspace_bytes()).c_str(),
                 format_milliseconds(next->time_ms()).c_str(), next->to_string().c_str());
    if (p.plan) std::fprintf(out, " (%.2fx faster)", now / next->time_ms());
    std::fprintf(out, "\n");
  } else {
    std::fprintf(out, "  a larger limit: would make it no faster\n");
  }
}

// Under WD: where the kernel runs in the arena, shared or its own, and why.
void explain_division(std::FILE* out, const DivisionOutcome& wd, std::size_t kernel) {
  const auto& segment = wd.segments[wd.segment[kernel]];
  const std::size_t others = segment.kernels.size() - 1;
  std::fprintf(out, "  WD: %s in segment %zu (%s), ", wd.chosen[kernel].to_string().c_str(),
               wd.segment[kernel] + 1, format_byte_size(segment.bytes).c_str());
  if (others == 0)
    std::fprintf(out, "its own: %s\n", segment.reason.c_str());
  else
    std::fprintf(out, "shared in stream order with %zu other kernel%s: %s\n", others,
                 others == 1 ? "" : "s", segment.reason.c_str());
}

}  // namespace

void print_plan_explanation(std::FILE* out, const std::vector<NetworkKernel>& kernels,
                            const NetworkPlan& plan, const PlanningRequest& request) {
  std::fprintf(out, "\nWhy each plan won (WR, per-kernel limit %s):\n",
               format_byte_size(request.workspace_limit).c_str());
  for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
    std::string label = kernels[plan.distinct[d].first].label();
    for (std::size_t u = 1; u < plan.distinct[d].uses.size(); ++u)
      label += ", and " + kernels[plan.distinct[d].uses[u]].label() + " (the same kernel)";
    explain_kernel(out, label, plan.plans[d], request.workspace_limit);
    if (plan.division && *plan.division) explain_division(out, **plan.division, d);
  }
}

}  // namespace ucudnn::cli
