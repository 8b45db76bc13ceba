// The report's WD arena (figures.h): one bar per segment, and the table of who shares it.
#include <algorithm>
#include <cstdio>
#include <string>

#include "core/text.h"
#include "report/figures.h"
#include "report/svg.h"
#include "user_input/byte_size.h"

namespace ucudnn::cli::report {

namespace {

constexpr double kWidth = 1080;
constexpr double kLeft = 8, kRight = 1060;
constexpr double kBarTop = 22, kBarHeight = 44;

// "conv1 Forward" for a segment of its own; "conv1 Forward and 52 more" for a shared one.
std::string kernel_names(const ReportModel& model, const ArenaSegment& s) {
  std::string names = s.kernels.empty() ? "-" : model.kernels[s.kernels.front()].name();
  if (s.kernels.size() > 1) names += " and " + std::to_string(s.kernels.size() - 1) + " more";
  return names;
}

std::string segment_text(const ReportModel& model, const ArenaSegment& s) {
  std::string text = kernel_names(model, s) + ": offset " + format_byte_size(s.offset) + ", " +
                     format_byte_size(s.extent) + " reserved";
  if (s.kernels.size() == 1) {
    const KernelFigure& k = model.kernels[s.kernels.front()];
    if (k.wd) text += ", " + k.wd->to_string() + formatted(", %.3f ms", k.wd->time_ms());
  } else {
    text += ", shared in stream order";
  }
  return text + "; " + s.reason;
}

void segment_table(pugi::xml_node parent, const ReportModel& model, const Arena& arena) {
  pugi::xml_node table = element(parent, "table", {{"class", "arena-table"}});
  pugi::xml_node head = element(element(table, "thead"), "tr");
  for (const char* title : {"segment", "offset", "reserved", "workspace used", "kernels",
                            "configuration", "time (ms, one use each)", "why"})
    text_element(head, "th", title);
  pugi::xml_node body = element(table, "tbody");
  std::size_t number = 0;
  for (const auto& s : arena.segments) {
    double time_ms = 0;
    for (auto k : s.kernels)
      if (const auto& wd = model.kernels[k].wd) time_ms += wd->time_ms();
    const KernelFigure* alone = s.kernels.size() == 1 ? &model.kernels[s.kernels.front()] : nullptr;
    pugi::xml_node row = element(body, "tr");
    text_element(row, "td", std::to_string(++number), {{"class", "number"}});
    text_element(row, "td", format_byte_size(s.offset));
    text_element(row, "td", format_byte_size(s.extent));
    text_element(row, "td", format_byte_size(s.used));
    text_element(row, "td", kernel_names(model, s));
    text_element(row, "td",
                 alone ? (alone->wd ? alone->wd->to_string() : "-")
                       : "each its fastest within the segment, in stream order");
    text_element(row, "td", formatted("%.3f", time_ms), {{"class", "number"}});
    text_element(row, "td", s.reason);
  }
}

}  // namespace

void draw_arena(pugi::xml_node parent, const ReportModel& model) {
  if (!model.arena) return;
  const Arena& arena = *model.arena;
  const double extent =
      static_cast<double>(std::max<std::uint64_t>({arena.workspace_bytes, arena.total_limit, 1}));
  auto x_of = [&](std::uint64_t bytes) {
    return kLeft + static_cast<double>(bytes) / extent * (kRight - kLeft);
  };
  pugi::xml_node svg =
      svg_figure(parent, kWidth, 96, "The WD workspace: each segment at its offset", "arena");
  element(svg, "rect",
          {{"class", "gauge"},
           {"x", kLeft},
           {"y", kBarTop},
           {"width", kRight - kLeft},
           {"height", kBarHeight}});
  std::size_t shown = 0;
  for (const auto& s : arena.segments) {
    const double x = x_of(s.offset), w = x_of(s.offset + s.extent) - x;
    const Swatch colour = swatch(shown++);
    pugi::xml_node r = element(svg, "rect",
                               {{"class", "arena-segment"},
                                {"x", x},
                                {"y", kBarTop},
                                {"width", w},
                                {"height", kBarHeight},
                                {"fill", colour.fill},
                                {"data-kernels", std::to_string(s.kernels.size())},
                                {"data-offset", std::to_string(s.offset)},
                                {"data-extent-bytes", std::to_string(s.extent)}});
    hover_text(r, segment_text(model, s));
    // The segment's number in the table below, where it fits; hover text names it anyway.
    const std::string label = std::to_string(shown);
    if (w > 7.0 * static_cast<double>(label.size()) + 4)
      text_element(svg, "text", label,
                   {{"x", x + w / 2},
                    {"y", kBarTop + kBarHeight / 2 + 4},
                    {"text-anchor", "middle"},
                    {"class", "segment-number"}});
  }
  const double limit_x = x_of(arena.total_limit);
  pugi::xml_node line = element(svg, "line",
                                {{"class", "limit-line"},
                                 {"x1", limit_x},
                                 {"x2", limit_x},
                                 {"y1", kBarTop - 8},
                                 {"y2", kBarTop + kBarHeight + 8}});
  hover_text(line, "total limit " + format_byte_size(arena.total_limit));
  text_element(svg, "text", "0", {{"x", kLeft}, {"y", 14.0}});
  text_element(svg, "text", "total limit " + format_byte_size(arena.total_limit),
               {{"x", limit_x}, {"y", 14.0}, {"text-anchor", "end"}});
  text_element(svg, "text",
               "allocated " + format_byte_size(arena.workspace_bytes) + " in " +
                   counted(arena.segments.size(), "segment") +
                   " (zero-byte segments take no width)",
               {{"x", kLeft}, {"y", kBarTop + kBarHeight + 22}});
  segment_table(parent, model, arena);
}

}  // namespace ucudnn::cli::report
