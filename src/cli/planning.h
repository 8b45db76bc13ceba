#pragma once
// Planning a whole network from measurements: the WR plan of every kernel under the
// per-kernel limit, beside the fastest undivided candidate within that limit (what
// cudnn-frontend's autotuning capped at the limit would pick) and with no limit, and the WD
// plan under the total limit. Stored under the keys the shim reads, so that a job started
// after `ucudnn bench` finds its plans.
#include <optional>
#include <string>
#include <vector>

#include "common_options.h"
#include "core/benchmark_store.h"
#include "core/micro_table.h"
#include "network_kernels.h"

namespace ucudnn::cli {

struct KernelPlan {
  MicroTable table;                             // every measured micro-configuration
  std::optional<Configuration> plan;            // WR within the limit
  LimitRange plan_limits;                       // every limit the WR plan answers
  std::string plan_error;                       // why there is none
  std::optional<MicroConfiguration> undivided;  // fastest undivided within the limit
  // Fastest undivided with no limit: what an application that allocates whatever its choice
  // needs would run (a framework's own autotuning), the other baseline.
  std::optional<MicroConfiguration> unlimited;
  // Whether the backend runs the kernel at some micro-batch size, whatever the workspace.
  bool runnable() const;
};

// Kernels of one stream share a segment of the arena, each its fastest configuration within
// it; each stream (streams tied by a kernel run on both: one) gets a segment of its own, and
// the ILP divides the total among them (core/workspace_sharing.h).
struct DivisionOutcome {
  std::string subject;                    // the network's name in the store (division_key)
  std::vector<std::size_t> stored_order;  // distinct kernels in the order the subject lists
  std::vector<Configuration> chosen;      // per distinct kernel, times unweighted
  std::vector<std::uint64_t> offsets;     // per distinct kernel: its segment's offset
  std::vector<std::size_t> segment;       // per distinct kernel: its segment
  struct Segment {
    std::uint64_t offset = 0, bytes = 0;
    std::vector<std::size_t> kernels;  // distinct kernels sharing it, in order of first use
    std::string reason;                // why they run there: the streams they may overlap
  };
  std::vector<Segment> segments;  // in layout order (an empty one before the one at its offset)
  double time_ms = 0;             // the network: each kernel's time times its uses
  std::uint64_t workspace_bytes = 0;
  std::size_t variables = 0;
};

struct NetworkPlan {
  std::vector<DistinctKernel> distinct;
  std::vector<std::size_t> distinct_of;               // per kernel, its index into `distinct`
  std::vector<KernelPlan> plans;                      // per distinct kernel
  std::optional<Expected<DivisionOutcome>> division;  // when a total workspace was given

  const KernelPlan& of(std::size_t kernel) const { return plans[distinct_of[kernel]]; }
};

// `measurements` answers every (kernel, algorithm, micro-batch) the policy needs.
NetworkPlan plan_network(Benchmarker& measurements, const std::vector<NetworkKernel>& kernels,
                         const PlanningRequest& request);

void store_plans(BenchmarkStore& store, const std::string& fingerprint,
                 const std::vector<NetworkKernel>& kernels, const NetworkPlan& plan,
                 const PlanningRequest& request);

}  // namespace ucudnn::cli
