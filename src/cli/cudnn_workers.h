#pragma once
// GPUs as `ucudnn bench` workers: per GPU a stream, a cuDNN handle on it and a
// CudnnBenchmarker, each used by its own thread. cuDNN and the CUDA runtime are resolved at
// run time; a machine without them, or without a usable GPU, gets an error that says which.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "cluster.h"
#include "device_selection.h"
#include "worker.h"

namespace ucudnn::cli {

// This process's GPUs: the choice resolved on this machine, and in an MPI job this rank's
// share of its node's devices. `knob_variants_over`: a configuration whose workspace is over it
// also offers its smaller-workspace knob values (cudnn/cudnn_benchmarker.h).
Expected<std::vector<std::unique_ptr<Worker>>> open_gpu_workers(
    const DeviceChoice& choice, const Cluster& cluster, int repeats,
    std::optional<std::uint64_t> knob_variants_over = std::nullopt);

}  // namespace ucudnn::cli
