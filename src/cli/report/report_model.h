#pragma once
// What `ucudnn report` draws, computed once from a network's stored plan: per distinct
// kernel its desirable set (the Pareto front of time and workspace over every configuration
// its measurements allow) with each measurement behind it, the WR and WD choices, and the WD
// arena's segments. The same data go into the page as JSON for scripts.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/pareto_front.h"
#include "stored_network_plan.h"

namespace ucudnn::cli::report {

// One measurement, and what it would cost to cover the whole batch with it alone.
struct MeasuredPoint {
  MicroConfiguration micro;
  double whole_batch_ms = 0;  // time per sample times the batch
};

struct KernelFigure {
  std::string hash;                 // the kernel key's hash, 16 hex digits
  std::vector<std::string> labels;  // every use: "conv2 Forward"
  std::int64_t batch = 0;
  ParetoFront front;                            // at any workspace: the limit is drawn as a line
  std::vector<MeasuredPoint> measured;          // every supported measurement
  std::optional<Configuration> wr;              // the WR plan under the per-kernel limit
  std::optional<Configuration> wd;              // the division's choice (times unweighted)
  std::optional<MicroConfiguration> undivided;  // the fastest that fits the limit
  std::optional<MicroConfiguration> unlimited;  // the fastest undivided at any workspace
  std::string name() const;                     // the first use, "(x3)" when repeated
};

struct ArenaSegment {
  std::vector<std::size_t> kernels;  // indices into ReportModel::kernels: one stream's share it
  std::uint64_t offset = 0;          // in the one workspace
  std::uint64_t extent = 0;          // bytes reserved, padding included: segments tile the arena
  std::uint64_t used = 0;            // the largest workspace among its kernels' configurations
  std::string reason;                // why its kernels run there: the streams they may overlap
};

struct Arena {
  std::uint64_t workspace_bytes = 0;   // what WD allocates
  std::uint64_t total_limit = 0;       // what the user allowed
  double time_ms = 0;                  // the network, each kernel times its uses
  std::vector<ArenaSegment> segments;  // by offset
};

struct ReportModel {
  const StoredNetworkPlan* stored = nullptr;
  std::vector<KernelFigure> kernels;  // per distinct kernel, in order of first use
  std::optional<Arena> arena;         // when WD was planned and found a division
  std::string division_error;         // when WD was planned and found none
  nlohmann::json plan;                // exactly `ucudnn plan --json`'s document

  // {"plan": ..., "kernels": [{hash, layers, batch, front, measured, wr, wd, undivided,
  //                            unlimited}],
  //  "arena": null | {workspace_bytes, total_limit, time_ms, segments: [...]}}
  nlohmann::json to_json() const;
};

ReportModel build_report_model(const StoredNetworkPlan& stored);

}  // namespace ucudnn::cli::report
