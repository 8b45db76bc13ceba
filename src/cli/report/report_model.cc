#include "report/report_model.h"

#include <algorithm>

#include "plan_report.h"

namespace ucudnn::cli::report {

std::string KernelFigure::name() const {
  std::string text = labels.empty() ? hash : labels.front();
  if (labels.size() > 1) text += " (x" + std::to_string(labels.size()) + ")";
  return text;
}

namespace {

KernelFigure kernel_figure(const StoredNetworkPlan& stored, std::size_t d) {
  const NetworkPlan& plan = stored.plan;
  const DistinctKernel& distinct = plan.distinct[d];
  const KernelPlan& kernel_plan = plan.plans[d];
  KernelFigure figure;
  figure.hash = stored.kernels[distinct.first].key.hash_hex();
  for (auto use : distinct.uses) figure.labels.push_back(stored.kernels[use].label());
  figure.batch = kernel_plan.table.batch;
  figure.front = desirable_configurations(kernel_plan.table);
  for (const auto& candidates : kernel_plan.table.candidates)
    for (const auto& micro : candidates)
      figure.measured.push_back({micro, micro.time_ms / static_cast<double>(micro.batch) *
                                            static_cast<double>(kernel_plan.table.batch)});
  figure.wr = kernel_plan.plan;
  figure.undivided = kernel_plan.undivided;
  figure.unlimited = kernel_plan.unlimited;
  if (plan.division && *plan.division) figure.wd = (**plan.division).chosen[d];
  return figure;
}

Arena arena_of(const DivisionOutcome& division, std::uint64_t total_limit) {
  Arena arena;
  arena.workspace_bytes = division.workspace_bytes;
  arena.total_limit = total_limit;
  arena.time_ms = division.time_ms;
  for (const auto& segment : division.segments)  // by offset
    arena.segments.push_back({segment.kernels, segment.offset, 0, segment.bytes, segment.reason});
  // Each segment reaches the next one's start: the alignment's padding belongs to it.
  for (std::size_t i = 0; i < arena.segments.size(); ++i) {
    const std::uint64_t end =
        i + 1 < arena.segments.size() ? arena.segments[i + 1].offset : arena.workspace_bytes;
    arena.segments[i].extent = end - arena.segments[i].offset;
  }
  return arena;
}

nlohmann::json optional_configuration(const std::optional<Configuration>& configuration) {
  return configuration ? configuration_json(*configuration) : nlohmann::json(nullptr);
}

}  // namespace

ReportModel build_report_model(const StoredNetworkPlan& stored) {
  ReportModel model;
  model.stored = &stored;
  for (std::size_t d = 0; d < stored.plan.distinct.size(); ++d)
    model.kernels.push_back(kernel_figure(stored, d));
  if (const auto& division = stored.plan.division) {
    if (*division)
      model.arena = arena_of(**division, *stored.request.total_workspace);
    else
      model.division_error = division->error();
  }
  model.plan = plan_json(stored.kernels, stored.plan, stored.request, stored.fingerprint);
  return model;
}

nlohmann::json ReportModel::to_json() const {
  using nlohmann::json;
  json figures = json::array();
  for (const auto& k : kernels) {
    json front = json::array(), measured = json::array();
    for (const auto& c : k.front) front.push_back(configuration_json(c));
    for (const auto& m : k.measured)
      measured.push_back({{"algorithm", m.micro.algorithm},
                          {"batch", m.micro.batch},
                          {"time_ms", m.micro.time_ms},
                          {"workspace_bytes", m.micro.workspace_bytes},
                          {"whole_batch_ms", m.whole_batch_ms}});
    auto undivided_json = [](const std::optional<MicroConfiguration>& micro) -> json {
      if (!micro) return nullptr;
      return {{"algorithm", micro->algorithm},
              {"time_ms", micro->time_ms},
              {"workspace_bytes", micro->workspace_bytes}};
    };
    figures.push_back({{"kernel_hash", k.hash},
                       {"layers", k.labels},
                       {"batch", k.batch},
                       {"front", std::move(front)},
                       {"measured", std::move(measured)},
                       {"wr", optional_configuration(k.wr)},
                       {"wd", optional_configuration(k.wd)},
                       {"undivided", undivided_json(k.undivided)},
                       {"unlimited", undivided_json(k.unlimited)}});
  }
  json arena_json = nullptr;
  if (arena) {
    json segments = json::array();
    for (const auto& s : arena->segments) {
      json hashes = json::array(), layers = json::array();
      for (auto k : s.kernels) {
        hashes.push_back(kernels[k].hash);
        for (const auto& label : kernels[k].labels) layers.push_back(label);
      }
      segments.push_back({{"kernel_hashes", std::move(hashes)},
                          {"layers", std::move(layers)},
                          {"offset", s.offset},
                          {"extent_bytes", s.extent},
                          {"workspace_bytes", s.used},
                          {"reason", s.reason}});
    }
    arena_json = {{"workspace_bytes", arena->workspace_bytes},
                  {"total_limit", arena->total_limit},
                  {"time_ms", arena->time_ms},
                  {"segments", std::move(segments)}};
  }
  return {{"format", "ucudnn-report/1"},
          {"plan", plan},
          {"kernels", std::move(figures)},
          {"arena", std::move(arena_json)}};
}

}  // namespace ucudnn::cli::report
