#include "report/html_page.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

#include "core/text.h"
#include "plan_report.h"
#include "report/figures.h"
#include "report/palette.h"
#include "report/svg.h"
#include "user_input/byte_size.h"
#include "user_input/duration.h"

namespace ucudnn::cli::report {

namespace {

// No '<', '>' or '&' anywhere (the serializer would escape them, and <style> takes no
// escapes): the child combinator is not used.
constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; color: #111; margin: 24px auto; max-width: 1120px; padding: 0 12px; }
h1 { font-size: 22px; margin-bottom: 4px; }
h2 { font-size: 18px; margin-top: 28px; border-bottom: 1px solid #bbb; }
p.lead { color: #333; margin-top: 0; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { text-align: left; padding: 2px 10px 2px 0; vertical-align: top; }
td.number, th.number { text-align: right; }
table.summary th { color: #444; font-weight: normal; }
table.arena-table { font-size: 12px; }
table.arena-table td, table.arena-table th { border-bottom: 1px solid #e4e4e4; }
code, .fingerprint { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
svg text { font: 11px system-ui, sans-serif; fill: #111; }
svg text.head { font-weight: bold; }
svg text.small { font-size: 10px; }
svg text.warning { fill: #a00; }
svg text.segment-number { font-weight: bold; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg text.axis-title { font-size: 10px; fill: #333; }
.axis text { font-size: 9px; fill: #444; }
.grid { stroke: #e2e2e2; stroke-width: 1; }
.layer-separator { stroke: #999; stroke-width: 0.5; }
.plan-bar { fill: #0072B2; }
.undivided-bar { fill: url(#undivided-hatch); stroke: #8a6100; stroke-width: 0.6; }
.unlimited-mark { stroke: #222; stroke-width: 2; }
.micro-batch { stroke: #fff; stroke-width: 0.7; }
.micro-batch.host { stroke: #000; stroke-dasharray: 2 1; }
.gauge { fill: #f1f1f1; stroke: #999; stroke-width: 0.6; }
.workspace-used { fill: #c4c4c4; }
.measured { fill: #8c8c8c; fill-opacity: 0.6; }
.staircase { fill: none; stroke: #0072B2; stroke-width: 1.4; }
.front-point { fill: #0072B2; stroke: #fff; stroke-width: 0.6; }
.wr-choice { fill: #000; stroke: #fff; stroke-width: 1; }
.wd-choice { fill: none; stroke: #D55E00; stroke-width: 2.2; }
.limit-line { stroke: #000; stroke-width: 1.2; stroke-dasharray: 5 3; }
.arena-segment { stroke: #fff; stroke-width: 1; }
.small-multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(300px, 1fr)); gap: 6px 10px; }
figure.kernel-front { margin: 0; }
figure.kernel-front figcaption { font-size: 11px; color: #222; margin-left: 46px; }
details.operation summary { font-weight: bold; margin: 10px 0 4px; cursor: pointer; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 18px; font-size: 12px; margin: 6px 0; }
.legend span { display: inline-flex; align-items: center; gap: 5px; }
.legend svg { vertical-align: middle; }
.error { color: #a00; }
)";

std::string ratio(double value) {
  return formatted("%.2fx", value);
}

// A total's ratio to the plan's time; none where no kernel counted.
std::string ratio_to_plan(double ms, double plan_ms) {
  return plan_ms > 0 ? ratio(ms / plan_ms) : "-";
}

void summary_row(pugi::xml_node table, const std::string& name, const std::string& value,
                 const char* value_class = nullptr) {
  pugi::xml_node row = element(table, "tr");
  text_element(row, "th", name);
  pugi::xml_node cell = text_element(row, "td", value);
  if (value_class) cell.append_attribute("class").set_value(value_class);
}

void summary(pugi::xml_node body, const ReportModel& model) {
  const StoredNetworkPlan& stored = *model.stored;
  const PlanningRequest& request = stored.request;
  const auto& wr = model.plan["wr_total"];
  pugi::xml_node table = element(body, "table", {{"class", "summary"}});
  summary_row(table, "network",
              request.network.name + ": " + counted(request.network.layers.size(), "layer") + ", " +
                  counted(stored.kernels.size(), "kernel") + " (" +
                  std::to_string(stored.plan.distinct.size()) + " distinct), batch " +
                  std::to_string(request.batch));
  summary_row(table, "device", stored.fingerprint, "fingerprint");
  summary_row(table, "backend and policy",
              request.backend + ", micro-batch sizes " + std::string(name_of(request.policy)));
  summary_row(table, "database", stored.database, "fingerprint");
  summary_row(table, "WR: per-kernel limit", format_byte_size(request.workspace_limit));
  std::string wr_text =
      "plan " + format_milliseconds(wr["plan_ms"].get<double>()) + " vs best undivided " +
      format_milliseconds(wr["undivided_ms"].get<double>()) + ": " +
      ratio_to_plan(wr["undivided_ms"].get<double>(), wr["plan_ms"].get<double>());
  const PlanTotals totals = plan_totals(stored.kernels, stored.plan);
  if (totals.without_plan || totals.without_undivided)
    wr_text += " (without the " +
               std::to_string(std::max(totals.without_plan, totals.without_undivided)) +
               " kernels where nothing or no undivided algorithm fits)";
  const double unlimited_ms = wr["unlimited_ms"].get<double>(),
               plan_ms = wr["plan_ms"].get<double>();
  wr_text += "; unlimited best " + format_milliseconds(unlimited_ms) + ": " +
             ratio_to_plan(unlimited_ms, plan_ms);
  summary_row(table, "WR: network time", wr_text);
  if (!request.total_workspace) return;
  summary_row(table, "WD: total limit", format_byte_size(*request.total_workspace));
  if (!model.arena) {
    summary_row(table, "WD", model.division_error, "error");
    return;
  }
  std::string wd_text = format_milliseconds(model.arena->time_ms) + " in " +
                        format_byte_size(model.arena->workspace_bytes) + " vs WR's " +
                        format_milliseconds(wr["plan_ms"].get<double>());
  if (totals.undivided_ms > 0 && !totals.without_undivided)
    wd_text += "; " + ratio(totals.undivided_ms / model.arena->time_ms) + " the best undivided";
  summary_row(table, "WD: network time", wd_text);
}

void legend_entry(pugi::xml_node legend, const std::string& text,
                  const std::function<void(pugi::xml_node)>& draw) {
  pugi::xml_node span = element(legend, "span");
  pugi::xml_node svg = element(span, "svg",
                               {{"xmlns", "http://www.w3.org/2000/svg"},
                                {"width", 22.0},
                                {"height", 14.0},
                                {"aria-hidden", "true"}});
  draw(svg);
  text_element(span, "span", text);
}

void front_legend(pugi::xml_node parent) {
  pugi::xml_node legend = element(parent, "div", {{"class", "legend"}});
  legend_entry(legend, "Pareto front: the best time for a workspace", [](pugi::xml_node svg) {
    element(svg, "path", {{"class", "staircase"}, {"d", "M1 4H11V10H21"}});
    element(svg, "circle", {{"class", "front-point"}, {"cx", 11.0}, {"cy", 10.0}, {"r", 2.6}});
  });
  legend_entry(legend, "each measurement, scaled to the whole batch", [](pugi::xml_node svg) {
    element(svg, "path", {{"class", "measured"}, {"d", "M4 5h4v4h-4zM13 3h4v4h-4z"}});
  });
  legend_entry(legend, "WR plan", [](pugi::xml_node svg) {
    element(svg, "path", {{"class", "wr-choice"}, {"d", "M11 1l6 6l-6 6l-6 -6z"}});
  });
  legend_entry(legend, "WD choice", [](pugi::xml_node svg) {
    element(svg, "rect",
            {{"class", "wd-choice"}, {"x", 6.0}, {"y", 2.0}, {"width", 10.0}, {"height", 10.0}});
  });
  legend_entry(legend, "per-kernel limit", [](pugi::xml_node svg) {
    element(svg, "line",
            {{"class", "limit-line"}, {"x1", 11.0}, {"x2", 11.0}, {"y1", 0.0}, {"y2", 14.0}});
  });
}

void bar_legend(pugi::xml_node parent, const AlgorithmColors& colors) {
  pugi::xml_node legend = element(parent, "div", {{"class", "legend"}});
  legend_entry(legend, "plan", [](pugi::xml_node svg) {
    element(svg, "rect",
            {{"class", "plan-bar"}, {"x", 1.0}, {"y", 3.0}, {"width", 20.0}, {"height", 8.0}});
  });
  legend_entry(legend, "best undivided algorithm within the limit", [](pugi::xml_node svg) {
    element(svg, "rect",
            {{"class", "undivided-bar"}, {"x", 1.0}, {"y", 3.0}, {"width", 20.0}, {"height", 8.0}});
  });
  legend_entry(legend, "best undivided algorithm with no limit", [](pugi::xml_node svg) {
    element(svg, "line",
            {{"class", "unlimited-mark"}, {"x1", 11.0}, {"x2", 11.0}, {"y1", 1.0}, {"y2", 13.0}});
  });
  // The algorithms in the order their colours were given.
  std::vector<std::string> names(colors.indices().size());
  for (const auto& [name, i] : colors.indices()) names[i] = name;
  for (const auto& name : names) {
    const auto colon = name.find(':');
    const Swatch& s = colors.of(name.substr(0, colon), name.substr(colon + 1));
    legend_entry(legend, name, [&](pugi::xml_node svg) {
      element(svg, "rect",
              {{"x", 1.0}, {"y", 1.0}, {"width", 20.0}, {"height", 12.0}, {"fill", s.fill}});
    });
  }
}

// Patterns every figure refers to, defined once for the page.
void shared_definitions(pugi::xml_node body) {
  pugi::xml_node svg = element(body, "svg",
                               {{"xmlns", "http://www.w3.org/2000/svg"},
                                {"width", 0.0},
                                {"height", 0.0},
                                {"style", "position: absolute"},
                                {"aria-hidden", "true"}});
  AlgorithmColors::add_pattern_definitions(svg);
  pugi::xml_node pattern = element(svg.child("defs"), "pattern",
                                   {{"id", "undivided-hatch"},
                                    {"width", 4.0},
                                    {"height", 4.0},
                                    {"patternUnits", "userSpaceOnUse"},
                                    {"patternTransform", "rotate(45)"}});
  element(pattern, "rect", {{"width", 4.0}, {"height", 4.0}, {"fill", "#F5C242"}});
  element(pattern, "line",
          {{"x1", 0.0},
           {"y1", 0.0},
           {"x2", 0.0},
           {"y2", 4.0},
           {"stroke", "#8a6100"},
           {"stroke-width", 1.2}});
}

// JSON inside <script> is raw text to the browser: no '<', '>' or '&' may appear in it, and
// outside strings JSON has none, so escaping them inside strings keeps the data exact.
std::string script_safe_json(const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      safe += "\\u003c";
    else if (c == '>')
      safe += "\\u003e";
    else if (c == '&')
      safe += "\\u0026";
    else
      safe += c;
  }
  return safe;
}

std::string serialized(pugi::xml_node node) {
  std::ostringstream out;
  node.print(out, "", pugi::format_raw | pugi::format_no_empty_element_tags);
  return out.str();
}

}  // namespace

std::string html_page(const ReportModel& model) {
  const StoredNetworkPlan& stored = *model.stored;
  const std::string title = "ucudnn report: " + stored.request.network.name + ", batch " +
                            std::to_string(stored.request.batch) + ", " + stored.request.backend;
  pugi::xml_document document;
  pugi::xml_node body = document.append_child("body");
  shared_definitions(body);
  text_element(body, "h1", title);
  text_element(body, "p",
               "Micro-batched convolutions under a workspace limit, read from the database. "
               "WR gives each kernel the per-kernel limit; WD divides one workspace among them.",
               {{"class", "lead"}});
  summary(body, model);

  const AlgorithmColors colors(model);
  text_element(body, "h2", "Time per layer and operation", {{"id", "layers"}});
  bar_legend(body, colors);
  draw_layer_times(body, model, colors);

  text_element(body, "h2", "Desirable configurations per kernel", {{"id", "fronts"}});
  text_element(body, "p",
               "Each chart is one kernel's Pareto front of time against workspace over every "
               "way its measurements can cover the batch: a larger limit moves the plan down "
               "the staircase.");
  front_legend(body);
  draw_kernel_fronts(body, model);

  if (stored.request.total_workspace) {
    text_element(body, "h2", "Workspace division", {{"id", "division"}});
    if (model.arena)
      draw_arena(body, model);
    else
      text_element(body, "p", "No division: " + model.division_error, {{"class", "error"}});
  }
  text_element(body, "script", script_safe_json(model.to_json()),
               {{"type", "application/json"}, {"id", "ucudnn-report-data"}});

  pugi::xml_document head_document;
  pugi::xml_node title_node = text_element(head_document.append_child("x"), "title", title);
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\" />"
         "<meta name=\"viewport\" content=\"width=device-width\" />"
         "<meta name=\"generator\" content=\"ucudnn report\" />" +
         serialized(title_node) + "<style>" + kStyle + "</style></head>" + serialized(body) +
         "</html>\n";
}

}  // namespace ucudnn::cli::report
