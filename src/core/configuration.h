#pragma once
// A micro-configuration is one call: (backend, algorithm, micro-batch) with its measured
// time and workspace. A configuration is the list of calls that together cover a batch;
// its time is the sum and its workspace the maximum (micro-batches run one after another
// and reuse one workspace).
#include <cstdint>
#include <string>
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

struct Configuration {
  std::vector<MicroConfiguration> micro;

  double time_ms() const;
  std::uint64_t workspace_bytes() const;
  std::int64_t batch() const;
  std::string to_string() const;  // e.g. "cudnn:FFT:60 x4 + cudnn:IMPLICIT_GEMM:16"

  friend bool operator==(const Configuration&, const Configuration&) = default;
};

}  // namespace ucudnn
