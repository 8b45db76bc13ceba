#pragma once
// A micro-configuration is one call: (backend, algorithm, micro-batch) with its measured
// time and workspace. A configuration is the list of calls that together cover a batch;
// its time is the sum and its workspace the maximum (micro-batches run one after another
// and reuse one workspace).
//
// Under CPU/GPU hybrid a configuration also hands the batch's last samples to the host
// (`offload`): the device computes its micro-batches while the host computes its own, so the
// time is the longer of the two sides, and the host's side needs no device workspace beyond
// what its results pass through on the way back (`device_bytes`).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ucudnn {

struct MicroConfiguration {
  std::string backend;    // "cudnn", "cpu", ...
  std::string algorithm;  // stable name, e.g. "FFT_TILING"; never a positional index
  std::int64_t batch = 0;
  double time_ms = 0;
  std::uint64_t workspace_bytes = 0;

  friend bool operator==(const MicroConfiguration&, const MicroConfiguration&) = default;
};

// The samples after the device's share, computed on the host.
struct OffloadedShare {
  std::vector<MicroConfiguration> micro;  // a WR configuration on the host backend
  double copy_ms = 0;  // the share's inputs to the host and its results back, as modelled
  // Device memory the share's results pass through (BackwardFilter's partial gradient, added
  // to the device's): drawn from the configuration's workspace.
  std::uint64_t device_bytes = 0;

  double time_ms() const;  // the host's computation plus the copies
  std::int64_t batch() const;
  friend bool operator==(const OffloadedShare&, const OffloadedShare&) = default;
};

struct Configuration {
  Configuration() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): {micro...} reads as the list it is
  Configuration(std::vector<MicroConfiguration> micro_batches,
                std::optional<OffloadedShare> offloaded = std::nullopt)
      : micro(std::move(micro_batches)), offload(std::move(offloaded)) {}

  std::vector<MicroConfiguration> micro;
  std::optional<OffloadedShare> offload;

  double time_ms() const;
  std::uint64_t workspace_bytes() const;  // device workspace
  std::int64_t batch() const;
  // The device's own micro-batches' time (without the offloaded share).
  double device_time_ms() const;
  std::int64_t device_batch() const;
  // e.g. "cudnn:FFT:60 x4 + cudnn:IMPLICIT_GEMM:16", and under hybrid
  // "cudnn:FFT:48 | cpu:LOWERING_BATCHED:16"
  std::string to_string() const;

  friend bool operator==(const Configuration&, const Configuration&) = default;
};

}  // namespace ucudnn
