#pragma once
// One device that benchmarks for `ucudnn bench`: the CPU (its thread pool), or one GPU (its
// cuDNN handle and stream). Several GPU workers of one process measure in parallel, one
// thread each.
#include <optional>
#include <string>

#include "core/benchmarker.h"
#include "core/configuration.h"

namespace ucudnn::cli {

class Worker {
 public:
  virtual ~Worker() = default;

  virtual Benchmarker& benchmarker() = 0;
  // Called on every thread before it uses this worker: a GPU worker makes its device the
  // thread's current one (CUDA keeps the current device per thread).
  virtual void enter_thread() {}
  virtual std::string description() const = 0;  // "GPU 1 (NVIDIA H100 80GB HBM3)"

  // Runs a configuration for real, side by side with others (bench's verification): the
  // median time of `repeats` runs, or nullopt when it cannot run.
  virtual std::optional<double> run_ms(const KernelKey& kernel, const Configuration& configuration,
                                       int repeats) = 0;
};

}  // namespace ucudnn::cli
