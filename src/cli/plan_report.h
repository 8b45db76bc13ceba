#pragma once
// How a network's plan is shown: a table for people (`ucudnn bench`, `ucudnn plan`) and a
// JSON document for scripts (`ucudnn plan --json`). The JSON shape:
//
//   {"network": "alexnet", "batch": 32, "backend": "cpu", "policy": "powerOfTwo",
//    "fingerprint": "kind=cpu;...", "workspace_limit": 8388608, "total_workspace": null,
//    "kernels": [{"layer": "conv1", "operation": "Forward", "kernel_key": "ucudnn-kernel/1 ...",
//                 "kernel_hash": "0123456789abcdef",
//                 "plan": {"micro": [{"backend": "cpu", "algorithm": "LOWERING_BATCHED",
//                                     "batch": 16, "time_ms": 1.5, "workspace_bytes": 4096},
//                                    ...],
//                          "time_ms": 3.0, "workspace_bytes": 4096},   null when none fits
//                 "error": "...",                                      only when plan is null
//                 "undivided": {"algorithm": ..., "time_ms": ..., "workspace_bytes": ...},
//                                              the fastest undivided within the limit, or null
//                 "speedup": 1.25,             undivided time / plan time, or null
//                 "unlimited": {...as undivided}},  the fastest undivided with no limit
//                ...],
//    "wr_total": {"plan_ms": ..., "undivided_ms": ..., "speedup": ... or null, "unlimited_ms":
//    ...}, "wd": null, or {"error": "..."}, or
//          {"subject": "network:<hash>;...", "time_ms": ..., "workspace_bytes": ...,
//           "variables": ..., "kernels": [{"kernel_hash": ..., "layers": ["conv1 Forward"],
//                                          "plan": {...as above}, "offset": 0}, ...]}}
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "planning.h"

namespace ucudnn::cli {

struct PlanTotals {
  double plan_ms = 0;
  double undivided_ms = 0;
  double unlimited_ms = 0;            // over the same kernels as plan_ms
  std::size_t without_plan = 0;       // kernels where nothing fits the limit
  std::size_t without_undivided = 0;  // kernels where no undivided algorithm fits
};
PlanTotals plan_totals(const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan);

// The WR table and its totals.
void print_wr_plan(std::FILE* out, const std::vector<NetworkKernel>& kernels,
                   const NetworkPlan& plan, const PlanningRequest& request);
// The WD plan (or why there is none), when a total workspace was given.
void print_wd_plan(std::FILE* out, const std::vector<NetworkKernel>& kernels,
                   const NetworkPlan& plan, const PlanningRequest& request);

// {"micro": [...], "time_ms": ..., "workspace_bytes": ...}, as "plan" above.
nlohmann::json configuration_json(const Configuration& configuration);

nlohmann::json plan_json(const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan,
                         const PlanningRequest& request, const std::string& fingerprint);

}  // namespace ucudnn::cli
