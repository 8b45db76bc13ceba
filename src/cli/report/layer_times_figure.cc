// The report's per-layer times (figures.h): each plan's micro-batches beside the undivided
// time, and its workspace against the limit.
#include <algorithm>
#include <cstdio>
#include <string>

#include "core/text.h"
#include "report/axis.h"
#include "report/figures.h"
#include "report/svg.h"
#include "user_input/byte_size.h"

namespace ucudnn::cli::report {

namespace {

constexpr double kWidth = 1080;
constexpr double kTop = 46;  // column titles and the time axis
constexpr double kRow = 22;
constexpr double kLabelEnd = 190;
constexpr double kBarsFrom = 196, kBarsTo = 500;
constexpr double kNumbersAt = 508;
constexpr double kMicroFrom = 660, kMicroTo = 890;
constexpr double kWorkspaceFrom = 904, kWorkspaceTo = 1074;

std::string ms(double value) {
  return formatted("%.3f ms", value);
}

void column_titles(pugi::xml_node svg) {
  text_element(svg, "text", "layer and operation", {{"x", 4.0}, {"y", 14.0}, {"class", "head"}});
  text_element(svg, "text", "time (ms): plan, best undivided that fits, | with no limit",
               {{"x", kBarsFrom}, {"y", 14.0}, {"class", "head"}});
  text_element(svg, "text", "plan's micro-batches across the batch",
               {{"x", kMicroFrom}, {"y", 14.0}, {"class", "head"}});
  text_element(svg, "text", "workspace of the limit",
               {{"x", kWorkspaceFrom}, {"y", 14.0}, {"class", "head"}});
}

void time_axis(pugi::xml_node svg, const Axis& axis, double bottom) {
  pugi::xml_node g = element(svg, "g", {{"class", "axis"}});
  for (const auto& tick : axis.ticks()) {
    element(g, "line",
            {{"x1", tick.position},
             {"x2", tick.position},
             {"y1", kTop - 6},
             {"y2", bottom},
             {"class", "grid"}});
    text_element(g, "text", tick.label,
                 {{"x", tick.position}, {"y", kTop - 9}, {"text-anchor", "middle"}});
  }
}

// The plan's micro-batches in order, each as wide as its share of the batch.
void micro_batches(pugi::xml_node row, const Configuration& plan, double y,
                   const AlgorithmColors& colors) {
  const double batch = static_cast<double>(plan.batch());
  double at = 0;
  auto block = [&](const MicroConfiguration& m, bool host) {
    const double x = kMicroFrom + at / batch * (kMicroTo - kMicroFrom);
    const double w = static_cast<double>(m.batch) / batch * (kMicroTo - kMicroFrom);
    const Swatch& s = colors.of(m.backend, m.algorithm);
    pugi::xml_node r = element(row, "rect",
                               {{"class", host ? "micro-batch host" : "micro-batch"},
                                {"x", x},
                                {"y", y + 3},
                                {"width", std::max(w, 0.5)},
                                {"height", kRow - 6},
                                {"fill", s.fill},
                                {"data-algorithm", m.algorithm},
                                {"data-batch", std::to_string(m.batch)}});
    hover_text(r, formatted("%s%s:%s, %s, %.3f ms, %s", host ? "host " : "", m.backend.c_str(),
                            m.algorithm.c_str(),
                            counted(static_cast<std::size_t>(m.batch), "sample").c_str(), m.time_ms,
                            format_byte_size(m.workspace_bytes).c_str()));
    at += static_cast<double>(m.batch);
  };
  for (const auto& m : plan.micro) block(m, false);
  if (plan.offload)
    for (const auto& m : plan.offload->micro) block(m, true);
  // The blocks are too narrow for names: the plan's text form under them.
  text_element(row, "text", plan.to_string(),
               {{"x", kMicroFrom}, {"y", y + kRow + 8.0}, {"class", "small"}});
}

void workspace_gauge(pugi::xml_node row, const KernelPlan& plan, std::uint64_t limit, double y) {
  const double width = kWorkspaceTo - kWorkspaceFrom;
  element(row, "rect",
          {{"class", "gauge"},
           {"x", kWorkspaceFrom},
           {"y", y + 4},
           {"width", width},
           {"height", kRow - 8}});
  if (!plan.plan) return;
  const std::uint64_t used = plan.plan->workspace_bytes();
  const double fraction =
      limit ? std::min(1.0, static_cast<double>(used) / static_cast<double>(limit)) : 0;
  pugi::xml_node r = element(row, "rect",
                             {{"class", "workspace-used"},
                              {"x", kWorkspaceFrom},
                              {"y", y + 4},
                              {"width", fraction * width},
                              {"height", kRow - 8},
                              {"data-workspace-bytes", std::to_string(used)}});
  const std::string text = format_byte_size(used) + " of " + format_byte_size(limit);
  hover_text(r, text);
  text_element(row, "text", text, {{"x", kWorkspaceFrom + 4}, {"y", y + kRow - 7}});
}

}  // namespace

void draw_layer_times(pugi::xml_node parent, const ReportModel& model,
                      const AlgorithmColors& colors) {
  const StoredNetworkPlan& stored = *model.stored;
  const auto& kernels = stored.kernels;
  std::vector<double> times;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelPlan& p = stored.plan.of(i);
    if (p.plan) times.push_back(p.plan->time_ms());
    if (p.undivided) times.push_back(p.undivided->time_ms);
    if (p.unlimited) times.push_back(p.unlimited->time_ms);
  }
  // Rows are taller by the text line under the micro-batches.
  const double row = kRow + 12;
  const double height = kTop + row * static_cast<double>(kernels.size()) + 8;
  const Axis axis = Axis::fit(times, kBarsFrom, kBarsTo, /*allow_log=*/false);
  pugi::xml_node svg =
      svg_figure(parent, kWidth, height,
                 "Per layer and operation: the plan's time, the best undivided algorithm's within "
                 "the limit and with no limit, the plan's micro-batches, and its workspace against "
                 "the limit",
                 "layer-times");
  column_titles(svg);
  time_axis(svg, axis, height - 8);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const NetworkKernel& k = kernels[i];
    const KernelPlan& p = stored.plan.of(i);
    const double y = kTop + row * static_cast<double>(i);
    pugi::xml_node g = element(svg, "g",
                               {{"class", "kernel-row"},
                                {"data-layer", k.layer},
                                {"data-operation", std::string(name_of(k.key.operation))},
                                {"data-kernel-hash", k.key.hash_hex()}});
    if (i > 0 && kernels[i - 1].layer != k.layer)
      element(g, "line",
              {{"x1", 0.0},
               {"x2", kWidth},
               {"y1", y - 2},
               {"y2", y - 2},
               {"class", "layer-separator"}});
    text_element(g, "text", k.label(), {{"x", 4.0}, {"y", y + 14}});
    std::string numbers;
    if (p.plan) {
      const double t = p.plan->time_ms();
      pugi::xml_node bar = element(g, "rect",
                                   {{"class", "plan-bar"},
                                    {"x", kBarsFrom},
                                    {"y", y + 2},
                                    {"width", axis.position(t) - kBarsFrom},
                                    {"height", 8.0},
                                    {"data-time-ms", Exact{t}}});
      hover_text(bar, "plan " + p.plan->to_string() + ": " + ms(t));
      numbers = formatted("%.3g", t);  // three digits, however small the time
      micro_batches(g, *p.plan, y, colors);
    } else {
      text_element(g, "text", "nothing fits " + format_byte_size(stored.request.workspace_limit),
                   {{"x", kBarsFrom}, {"y", y + 10}, {"class", "warning"}});
      numbers = "no plan";
    }
    if (p.undivided) {
      const double t = p.undivided->time_ms;
      pugi::xml_node bar = element(g, "rect",
                                   {{"class", "undivided-bar"},
                                    {"x", kBarsFrom},
                                    {"y", y + 12},
                                    {"width", axis.position(t) - kBarsFrom},
                                    {"height", 8.0},
                                    {"data-time-ms", Exact{t}}});
      hover_text(bar, "best undivided within the limit: " + p.undivided->algorithm + ": " + ms(t));
      numbers += " vs " + formatted("%.3g", t);
      if (p.plan) numbers += formatted(": %.2fx", t / p.plan->time_ms());
    } else {
      numbers += ", no undivided fits";
    }
    if (p.unlimited) {
      // A tick across both bars: what an application free of the limit would run.
      const double t = p.unlimited->time_ms;
      const double x = axis.position(t);
      pugi::xml_node tick = element(g, "line",
                                    {{"class", "unlimited-mark"},
                                     {"x1", x},
                                     {"x2", x},
                                     {"y1", y},
                                     {"y2", y + 22},
                                     {"data-time-ms", Exact{t}}});
      hover_text(tick, "best undivided with no limit: " + p.unlimited->algorithm + ": " + ms(t) +
                           ", " + format_byte_size(p.unlimited->workspace_bytes));
    }
    text_element(g, "text", numbers, {{"x", kNumbersAt}, {"y", y + 14}, {"class", "small"}});
    workspace_gauge(g, p, stored.request.workspace_limit, y);
  }
}

}  // namespace ucudnn::cli::report
