#pragma once
// What the planner needs from a device: the algorithms that exist for a kernel, and for
// (kernel, algorithm, micro-batch) a measured time and workspace, or "not supported".
// The cuDNN adapter and the CPU backend implement it; tests use synthetic tables.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/device_fingerprint.h"
#include "core/kernel_key.h"

namespace ucudnn {

struct Measurement {
  double time_ms = 0;  // the median of the timed repeats
  std::uint64_t workspace_bytes = 0;
  // Spread of the timed repeats, for the record (0 when the benchmarker does not say).
  double min_ms = 0, max_ms = 0;
  int repeats = 0;
};

// Thrown by Benchmarker::benchmark when a measurement cannot be taken now (device memory held
// by the application, a failed synchronization). Unlike "not supported" (nullopt), it says
// nothing about the algorithm: wrappers that remember results must not remember it.
struct MeasurementUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by a benchmarker that measures within a workspace limit when the algorithm needs
// more: it was not run (nothing was allocated for it). Like MeasurementUnavailable it is never
// stored, but the table it was asked for is complete: the algorithm is out of the limit.
struct WorkspaceOverLimit : std::runtime_error {
  explicit WorkspaceOverLimit(std::uint64_t bytes)
      : std::runtime_error("needs " + std::to_string(bytes) + " workspace bytes"),
        workspace_bytes(bytes) {}
  std::uint64_t workspace_bytes;
};

class Benchmarker {
 public:
  virtual ~Benchmarker() = default;

  virtual std::string backend_name() const = 0;
  // Identifies the device and libraries measurements are valid for: results taken under
  // another fingerprint are never reused.
  virtual DeviceFingerprint fingerprint() const = 0;
  virtual std::vector<std::string> algorithms(const KernelKey& kernel) = 0;
  // `kernel` carries the full mini-batch; `micro_batch` is the size to measure.
  // nullopt: the algorithm does not support this kernel or micro-batch. Throws
  // MeasurementUnavailable when it cannot tell now.
  virtual std::optional<Measurement> benchmark(const KernelKey& kernel,
                                               const std::string& algorithm,
                                               std::int64_t micro_batch) = 0;
};

}  // namespace ucudnn
