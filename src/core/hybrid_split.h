#pragma once
// CPU/GPU hybrid (Caffe con Troll §4, Omnivore): one kernel's batch split between the device
// and the host. The device computes its WR configuration on the first B - b_c samples within
// the limit while the host computes a WR configuration of its own solvers on the last b_c,
// their inputs copied to the host and their results back. The time is
//   max(T_device(B - b_c), T_host(b_c) + copies(b_c)),
// and the best b_c is found exactly by scanning every split both sides can cover: the WR
// dynamic program answers every batch up to B at once on each side.
#include <cstdint>
#include <limits>
#include <optional>

#include "core/configuration.h"
#include "core/expected.h"
#include "core/kernel_key.h"
#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "core/workspace_reuse.h"

namespace ucudnn {

// The host-device link as planned: a copy of n bytes takes latency + n / bandwidth.
struct HostLink {
  double bytes_per_ms = std::numeric_limits<double>::infinity();  // infinity: free
  double latency_ms = 0;
  double copy_ms(std::uint64_t bytes) const;
};

// What crosses the link when the host computes `samples` samples of `kernel` (the batch's
// last ones): its inputs to the host, its results back, and the device memory the results
// pass through (BackwardFilter's partial gradient is added to the device's; the others'
// results land in their slice directly).
struct ShareTraffic {
  std::uint64_t to_host_bytes = 0;
  std::uint64_t to_device_bytes = 0;
  std::uint64_t device_bytes = 0;
};
ShareTraffic share_traffic(const KernelKey& kernel, std::int64_t samples);

// Whether the kernel's batch can be split between the devices: the samples' elements must be
// apart in memory (the batch the outermost dimension of x and y), so that the two shares'
// outputs never interleave.
bool splittable_between_devices(const KernelKey& kernel);

enum class HybridMode {
  kAuto,  // split where the planner predicts a gain
  kOn,    // always give the host at least one sample (tests, demonstrations)
};

struct HybridSplit {
  Configuration configuration;  // the device's share, and the host's as its offload
  std::int64_t host_samples = 0;
  double device_only_ms = std::numeric_limits<double>::infinity();  // WR on the device alone
  // Caffe con Troll's rule: the host's share proportional to its throughput on the whole
  // batch (B * T_device(B) / (T_device(B) + T_host(B))), at the nearest split both sides cover.
  std::int64_t throughput_rule_samples = 0;
  double throughput_rule_ms = std::numeric_limits<double>::infinity();
};

// `device` restricted to `workspace_limit`, the device's; `host` measured on the host backend
// (no limit). A split whose results need more device memory than the limit on their way
// back (share_traffic's device_bytes) is left out. An error when no split covers the batch
// (under kOn: none with a host share).
Expected<HybridSplit> plan_hybrid_split(const KernelKey& kernel, const MicroTable& device,
                                        const MicroTable& host, const HostLink& link,
                                        std::uint64_t workspace_limit, HybridMode mode);

// WD with the host beside: the kernel's desirable configurations (core/pareto_front.h) among
// the device's own (kAuto only) and every split's, the device's front at B - b_c beside the
// host's WR answer for b_c. A split needs no device workspace for the host's computation; it
// holds what its results pass through, and what the device's own smallest configuration for
// the whole batch needs (that plan runs while a CUDA graph is captured, when the host cannot
// take part): both are its offload's device_bytes. Empty when the device alone cannot cover
// the batch within `workspace_limit`.
ParetoFront hybrid_desirable_configurations(const KernelKey& kernel, const MicroTable& device,
                                            const MicroTable& host, const HostLink& link,
                                            std::uint64_t workspace_limit, HybridMode mode);

// The configuration that hands `host_samples` to the host: the device's WR answer for the
// rest and the host's for the share; nullopt where either side cannot cover its part.
std::optional<Configuration> hybrid_configuration(const KernelKey& kernel,
                                                  const ReuseSolutions& device,
                                                  const ReuseSolutions& host, const HostLink& link,
                                                  std::int64_t host_samples);

}  // namespace ucudnn
