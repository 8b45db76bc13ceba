#include "plan_report.h"

#include <algorithm>

#include "db/configuration_json.h"
#include "user_input/byte_size.h"
#include "user_input/duration.h"

namespace ucudnn::cli {

nlohmann::json configuration_json(const Configuration& configuration) {
  nlohmann::json value = db::configurations_to_json({configuration})[0];
  value["time_ms"] = configuration.time_ms();
  value["workspace_bytes"] = configuration.workspace_bytes();
  return value;
}

namespace {

std::string operation_name(const NetworkKernel& kernel) {
  return std::string(name_of(kernel.key.operation));
}

}  // namespace

PlanTotals plan_totals(const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan) {
  PlanTotals totals;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelPlan& p = plan.of(i);
    if (!p.plan) ++totals.without_plan;
    if (!p.undivided) ++totals.without_undivided;
    if (!p.plan || !p.undivided) continue;
    totals.plan_ms += p.plan->time_ms();
    totals.undivided_ms += p.undivided->time_ms;
    if (p.unlimited) totals.unlimited_ms += p.unlimited->time_ms;
  }
  return totals;
}

namespace {

int plan_column_width(const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan) {
  int width = 31;  // the header's
  for (std::size_t i = 0; i < kernels.size(); ++i)
    if (const auto& p = plan.of(i).plan)
      width = std::max(width, static_cast<int>(p->to_string().size()));
  return width;
}

}  // namespace

void print_wr_plan(std::FILE* out, const std::vector<NetworkKernel>& kernels,
                   const NetworkPlan& plan, const PlanningRequest& request) {
  int layer_width = 5, algorithm_width = 14;
  const int plan_width = plan_column_width(kernels, plan);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelPlan& p = plan.of(i);
    layer_width = std::max(layer_width, static_cast<int>(kernels[i].layer.size()));
    for (const auto& baseline : {p.undivided, p.unlimited})
      if (baseline)
        algorithm_width = std::max(algorithm_width, static_cast<int>(baseline->algorithm.size()));
  }
  std::fprintf(out, "%-*s %-14s %-*s %9s %10s | %-*s %9s | %7s | %-*s %9s %10s\n", layer_width,
               "layer", "operation", plan_width, "WR plan (algorithm:micro-batch)", "plan ms",
               "workspace", algorithm_width, "best undivided", "ms", "speedup", algorithm_width,
               "unlimited best", "ms", "workspace");
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const NetworkKernel& k = kernels[i];
    const KernelPlan& p = plan.of(i);
    std::fprintf(out, "%-*s %-14s ", layer_width, k.layer.c_str(), operation_name(k).c_str());
    if (p.plan)
      std::fprintf(out, "%-*s %9s %10s | ", plan_width, p.plan->to_string().c_str(),
                   format_milliseconds_number(p.plan->time_ms()).c_str(),
                   format_byte_size(p.plan->workspace_bytes()).c_str());
    else
      std::fprintf(out, "%-*s %9s %10s | ", plan_width,
                   (p.runnable() ? "nothing fits " + format_byte_size(request.workspace_limit)
                                 : std::string("no algorithm runs it"))
                       .c_str(),
                   "-", "-");
    if (p.undivided)
      std::fprintf(out, "%-*s %9s | ", algorithm_width, p.undivided->algorithm.c_str(),
                   format_milliseconds_number(p.undivided->time_ms).c_str());
    else
      std::fprintf(out, "%-*s %9s | ", algorithm_width, "none fits", "-");
    if (p.plan && p.undivided)
      std::fprintf(out, "%6.2fx | ", p.undivided->time_ms / p.plan->time_ms());
    else
      std::fprintf(out, "%7s | ", "-");
    if (p.unlimited)
      std::fprintf(out, "%-*s %9s %10s\n", algorithm_width, p.unlimited->algorithm.c_str(),
                   format_milliseconds_number(p.unlimited->time_ms).c_str(),
                   format_byte_size(p.unlimited->workspace_bytes).c_str());
    else
      std::fprintf(out, "%-*s %9s %10s\n", algorithm_width, "none", "-", "-");
  }
  const PlanTotals totals = plan_totals(kernels, plan);
  // No kernel counted (nothing fits anywhere): no ratio to show.
  const auto ratio = [&](double ms) {
    char text[32] = "-";
    if (totals.plan_ms > 0) std::snprintf(text, sizeof text, "%.2fx", ms / totals.plan_ms);
    return std::string(text);
  };
  std::fprintf(out, "\nWR total: planned %s vs best undivided %s: %s",
               format_milliseconds(totals.plan_ms).c_str(),
               format_milliseconds(totals.undivided_ms).c_str(),
               ratio(totals.undivided_ms).c_str());
  if (totals.without_plan || totals.without_undivided)
    std::fprintf(out, " (without the %zu kernels where nothing or no undivided algorithm fits)",
                 std::max(totals.without_plan, totals.without_undivided));
  // As the speedup: the unlimited best's time over the plan's (above 1: the plan is faster).
  std::fprintf(out, "; unlimited best %s: %s\n", format_milliseconds(totals.unlimited_ms).c_str(),
               ratio(totals.unlimited_ms).c_str());
}

void print_wd_plan(std::FILE* out, const std::vector<NetworkKernel>& kernels,
                   const NetworkPlan& plan, const PlanningRequest& request) {
  if (!plan.division) return;
  const int plan_width = plan_column_width(kernels, plan);
  if (!*plan.division) {
    std::fprintf(out, "\nWD under a total of %s: %s\n",
                 format_byte_size(*request.total_workspace).c_str(),
                 plan.division->error().c_str());
    return;
  }
  const DivisionOutcome& wd = **plan.division;
  std::fprintf(out, "\nWD plan under a total of %s:\n",
               format_byte_size(*request.total_workspace).c_str());
  int label_width = 20;
  for (const auto& d : plan.distinct)
    label_width = std::max(label_width, static_cast<int>(kernels[d.first].label().size()) + 6);
  for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
    std::string label = kernels[plan.distinct[d].first].label();
    if (plan.distinct[d].uses.size() > 1)
      label += " (x" + std::to_string(plan.distinct[d].uses.size()) + ")";
    const Configuration& c = wd.chosen[d];
    std::fprintf(out, "%-*s %-*s %9s %10s in segment %zu\n", label_width, label.c_str(), plan_width,
                 c.to_string().c_str(), format_milliseconds_number(c.time_ms()).c_str(),
                 format_byte_size(c.workspace_bytes()).c_str(), wd.segment[d] + 1);
  }
  for (std::size_t s = 0; s < wd.segments.size(); ++s) {
    const auto& segment = wd.segments[s];
    const std::size_t n = segment.kernels.size();
    std::fprintf(out, "segment %zu: %s at offset %s, %s: %s\n", s + 1,
                 format_byte_size(segment.bytes).c_str(), format_byte_size(segment.offset).c_str(),
                 n == 1 ? "one kernel's own"
                        : ("shared in stream order by " + std::to_string(n) + " kernels").c_str(),
                 segment.reason.c_str());
  }
  // The arena is the segments' sum, each aligned (segments may print a little under it).
  std::fprintf(out, "WD total: planned %s in an arena of %s\n",
               format_milliseconds(wd.time_ms).c_str(),
               format_byte_size(wd.workspace_bytes).c_str());
}

nlohmann::json plan_json(const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan,
                         const PlanningRequest& request, const std::string& fingerprint) {
  using nlohmann::json;
  json document = {
      {"network", request.network.name}, {"batch", request.batch},
      {"backend", request.backend},      {"policy", std::string(name_of(request.policy))},
      {"fingerprint", fingerprint},      {"workspace_limit", request.workspace_limit},
      {"total_workspace", nullptr}};
  if (request.total_workspace) document["total_workspace"] = *request.total_workspace;
  json rows = json::array();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelPlan& p = plan.of(i);
    json row = {{"layer", kernels[i].layer},
                {"operation", operation_name(kernels[i])},
                {"kernel_key", kernels[i].key.to_string()},
                {"kernel_hash", kernels[i].key.hash_hex()},
                {"plan", nullptr},
                {"undivided", nullptr},
                {"speedup", nullptr},
                {"unlimited", nullptr}};
    if (p.plan)
      row["plan"] = configuration_json(*p.plan);
    else
      row["error"] = p.plan_error;
    if (p.undivided)
      row["undivided"] = {{"algorithm", p.undivided->algorithm},
                          {"time_ms", p.undivided->time_ms},
                          {"workspace_bytes", p.undivided->workspace_bytes}};
    if (p.plan && p.undivided) row["speedup"] = p.undivided->time_ms / p.plan->time_ms();
    if (p.unlimited)
      row["unlimited"] = {{"algorithm", p.unlimited->algorithm},
                          {"time_ms", p.unlimited->time_ms},
                          {"workspace_bytes", p.unlimited->workspace_bytes}};
    rows.push_back(std::move(row));
  }
  document["kernels"] = std::move(rows);
  const PlanTotals totals = plan_totals(kernels, plan);
  document["wr_total"] = {
      {"plan_ms", totals.plan_ms},
      {"undivided_ms", totals.undivided_ms},
      {"speedup", totals.plan_ms > 0 ? json(totals.undivided_ms / totals.plan_ms) : json()},
      {"unlimited_ms", totals.unlimited_ms}};
  document["wd"] = nullptr;
  if (plan.division) {
    if (!*plan.division) {
      document["wd"] = {{"error", plan.division->error()}};
    } else {
      const DivisionOutcome& wd = **plan.division;
      json chosen = json::array();
      for (std::size_t d = 0; d < plan.distinct.size(); ++d) {
        json layers = json::array();
        for (auto use : plan.distinct[d].uses) layers.push_back(kernels[use].label());
        chosen.push_back({{"kernel_hash", kernels[plan.distinct[d].first].key.hash_hex()},
                          {"layers", std::move(layers)},
                          {"plan", configuration_json(wd.chosen[d])},
                          {"offset", wd.offsets[d]},
                          {"segment", wd.segment[d]}});
      }
      json segments = json::array();
      for (const auto& segment : wd.segments)
        segments.push_back({{"offset", segment.offset},
                            {"bytes", segment.bytes},
                            {"kernels", segment.kernels.size()},
                            {"reason", segment.reason}});
      document["wd"] = {{"subject", wd.subject},
                        {"time_ms", wd.time_ms},
                        {"workspace_bytes", wd.workspace_bytes},
                        {"variables", wd.variables},
                        {"kernels", std::move(chosen)},
                        {"segments", std::move(segments)}};
    }
  }
  return document;
}

}  // namespace ucudnn::cli
