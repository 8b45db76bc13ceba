#pragma once
// Measures the host-device link the CPU/GPU hybrid split is planned with: the median time of
// copies between pinned host memory and the device, on a stream of ucudnn's own, timed with
// events. Planning only (it allocates and synchronizes its own stream).
#include <cstddef>
#include <optional>

#include "core/hybrid_split.h"
#include "cudnn/cuda_runtime.h"

namespace ucudnn::cudnn {

// Copies of `bytes` (and of one byte, for the latency) each way; nullopt when the buffers,
// stream or events cannot be had. A link whose copies take no measurable time (the test
// doubles) is free: infinite bandwidth.
std::optional<HostLink> probe_host_link(const CudaRuntime& runtime, std::size_t bytes,
                                        int repeats = 5);

}  // namespace ucudnn::cudnn
