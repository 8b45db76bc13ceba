// The report's per-kernel figures (figures.h): every measurement and the Pareto front.
#include <cstdio>
#include <string>

#include "report/axis.h"
#include "report/figures.h"
#include "report/svg.h"
#include "user_input/byte_size.h"

namespace ucudnn::cli::report {

namespace {

constexpr double kWidth = 300, kHeight = 210;
constexpr double kLeft = 46, kRight = 292, kTop = 10, kBottom = 170;
constexpr double kMiB = 1024.0 * 1024.0;

double mib(std::uint64_t bytes) {
  return static_cast<double>(bytes) / kMiB;
}

std::string point_text(const Configuration& c) {
  return c.to_string() +
         formatted(": %.3f ms, %s", c.time_ms(), format_byte_size(c.workspace_bytes()).c_str());
}

void axes(pugi::xml_node svg, const Axis& x, const Axis& y) {
  pugi::xml_node g = element(svg, "g", {{"class", "axis"}});
  for (const auto& t : x.ticks()) {
    element(
        g, "line",
        {{"x1", t.position}, {"x2", t.position}, {"y1", kTop}, {"y2", kBottom}, {"class", "grid"}});
    text_element(g, "text", t.label,
                 {{"x", t.position}, {"y", kBottom + 12}, {"text-anchor", "middle"}});
  }
  for (const auto& t : y.ticks()) {
    element(
        g, "line",
        {{"x1", kLeft}, {"x2", kRight}, {"y1", t.position}, {"y2", t.position}, {"class", "grid"}});
    text_element(g, "text", t.label,
                 {{"x", kLeft - 4}, {"y", t.position + 3}, {"text-anchor", "end"}});
  }
  std::string x_title = std::string("workspace (MiB") + (x.logarithmic() ? ", log" : "") + ")";
  std::string y_title = std::string("time (ms") + (y.logarithmic() ? ", log" : "") + ")";
  text_element(g, "text", x_title,
               {{"x", (kLeft + kRight) / 2},
                {"y", kBottom + 28},
                {"text-anchor", "middle"},
                {"class", "axis-title"}});
  text_element(g, "text", y_title,
               {{"x", 10.0},
                {"y", (kTop + kBottom) / 2},
                {"text-anchor", "middle"},
                {"transform", "rotate(-90 10 " + format_number((kTop + kBottom) / 2) + ")"},
                {"class", "axis-title"}});
}

// Every measurement as a tiny square in one path: thousands of them stay light.
void measured_points(pugi::xml_node svg, const KernelFigure& k, const Axis& x, const Axis& y) {
  std::string d;
  for (const auto& m : k.measured) {
    d += "M" + format_number(x.position(mib(m.micro.workspace_bytes)) - 1.5) + " " +
         format_number(y.position(m.whole_batch_ms) - 1.5) + "h3v3h-3z";
  }
  pugi::xml_node path =
      element(svg, "path",
              {{"class", "measured"}, {"d", d}, {"data-count", std::to_string(k.measured.size())}});
  hover_text(path, "each measured (algorithm, micro-batch), scaled to the whole batch");
}

void front(pugi::xml_node svg, const KernelFigure& k, const Axis& x, const Axis& y) {
  pugi::xml_node g = element(svg, "g",
                             {{"class", "front"},
                              {"data-kernel-hash", k.hash},
                              {"data-points", std::to_string(k.front.size())}});
  if (k.front.empty()) return;
  // The best time any limit allows: flat until the next point's workspace, then down.
  std::string d;
  for (std::size_t i = 0; i < k.front.size(); ++i) {
    const double px = x.position(mib(k.front[i].workspace_bytes()));
    const double py = y.position(k.front[i].time_ms());
    d += (i == 0 ? "M" + format_number(px) + " " : "H" + format_number(px) + "V") +
         format_number(py);
  }
  d += "H" + format_number(kRight);
  element(g, "path", {{"class", "staircase"}, {"d", d}});
  for (const auto& c : k.front) {
    pugi::xml_node dot = element(g, "circle",
                                 {{"class", "front-point"},
                                  {"cx", x.position(mib(c.workspace_bytes()))},
                                  {"cy", y.position(c.time_ms())},
                                  {"r", 2.6},
                                  {"data-time-ms", Exact{c.time_ms()}},
                                  {"data-workspace-bytes", std::to_string(c.workspace_bytes())}});
    hover_text(dot, point_text(c));
  }
}

void choice(pugi::xml_node svg, const std::optional<Configuration>& c, const Axis& x, const Axis& y,
            const char* css_class, const char* who) {
  if (!c) return;
  const double px = x.position(mib(c->workspace_bytes()));
  const double py = y.position(c->time_ms());
  pugi::xml_node marker;
  if (std::string(css_class) == "wr-choice")  // a diamond
    marker = element(
        svg, "path",
        {{"class", css_class},
         {"d", "M" + format_number(px) + " " + format_number(py - 6) + "l6 6l-6 6l-6 -6z"}});
  else  // a square
    marker = element(
        svg, "rect",
        {{"class", css_class}, {"x", px - 5}, {"y", py - 5}, {"width", 10.0}, {"height", 10.0}});
  marker.append_attribute("data-time-ms").set_value(c->time_ms());
  hover_text(marker, std::string(who) + " " + point_text(*c));
}

void kernel_chart(pugi::xml_node parent, const KernelFigure& k, std::uint64_t limit) {
  pugi::xml_node figure = element(parent, "figure", {{"class", "kernel-front"}});
  std::vector<double> xs{mib(limit)}, ys;
  for (const auto& c : k.front) {
    xs.push_back(mib(c.workspace_bytes()));
    ys.push_back(c.time_ms());
  }
  for (const auto& m : k.measured) {
    xs.push_back(mib(m.micro.workspace_bytes));
    ys.push_back(m.whole_batch_ms);
  }
  const Axis x = Axis::fit(xs, kLeft, kRight);
  const Axis y = Axis::fit(ys, kBottom, kTop);
  pugi::xml_node svg = svg_figure(
      figure, kWidth, kHeight,
      "Desirable configurations of " + k.name() + ": time against workspace", "front-chart");
  axes(svg, x, y);
  measured_points(svg, k, x, y);
  const double lx = x.position(mib(limit));
  pugi::xml_node line =
      element(svg, "line",
              {{"class", "limit-line"}, {"x1", lx}, {"x2", lx}, {"y1", kTop}, {"y2", kBottom}});
  hover_text(line, "per-kernel limit " + format_byte_size(limit));
  front(svg, k, x, y);
  choice(svg, k.wr, x, y, "wr-choice", "WR plan");
  choice(svg, k.wd, x, y, "wd-choice", "WD choice");
  std::string caption = k.name();
  if (k.wr) caption += formatted(": WR %.3f ms", k.wr->time_ms());
  if (k.wd) caption += formatted(", WD %.3f ms", k.wd->time_ms());
  text_element(figure, "figcaption", caption);
}

}  // namespace

void draw_kernel_fronts(pugi::xml_node parent, const ReportModel& model) {
  const std::uint64_t limit = model.stored->request.workspace_limit;
  for (auto operation :
       {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
    pugi::xml_node group = element(parent, "details", {{"open", "open"}, {"class", "operation"}});
    std::size_t count = 0;
    pugi::xml_node grid;
    for (std::size_t d = 0; d < model.kernels.size(); ++d) {
      const auto& first = model.stored->kernels[model.stored->plan.distinct[d].first];
      if (first.key.operation != operation) continue;
      if (!count++) {
        text_element(group, "summary", std::string(name_of(operation)));
        grid = element(group, "div", {{"class", "small-multiples"}});
      }
      kernel_chart(grid, model.kernels[d], limit);
    }
    if (!count) parent.remove_child(group);
  }
}

}  // namespace ucudnn::cli::report
