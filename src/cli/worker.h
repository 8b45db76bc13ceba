#pragma once
// One device that benchmarks for `ucudnn bench`: the CPU (its thread pool), or one GPU (its
// cuDNN handle and stream). Several GPU workers of one process measure in parallel, one
// thread each.
#include <optional>
#include <string>

#include "core/algorithm_exclusion.h"
#include "core/benchmarker.h"
#include "core/configuration.h"
#include "core/output_comparison.h"

namespace ucudnn::cli {

class Worker {
 public:
  virtual ~Worker() = default;

  // The device's benchmarker without the algorithms the user excluded.
  ExcludingBenchmarker& benchmarker() {
    if (!allowed_) allowed_.emplace(device_benchmarker(), excluded_);
    return *allowed_;
  }
  void exclude(AlgorithmExclusion excluded) { excluded_ = std::move(excluded); }
  // Called on every thread before it uses this worker: a GPU worker makes its device the
  // thread's current one (CUDA keeps the current device per thread).
  virtual void enter_thread() {}
  virtual std::string description() const = 0;  // "GPU 1 (NVIDIA H100 80GB HBM3)"
  // Where on its node the device is ("PCI 0000:3b:00"), the same for every process that uses it
  // however it numbers the node's devices; empty where that says nothing (the CPU).
  virtual std::string address() const { return {}; }

  // Runs a plan and its baseline for real on the same inputs (bench's plan check): their
  // median times over `repeats` interleaved rounds and their outputs compared; nullopt when
  // either cannot run.
  virtual std::optional<SideBySideRuns> run_side_by_side(const KernelKey& kernel,
                                                         const Configuration& plan,
                                                         const Configuration& baseline,
                                                         int repeats) = 0;

 protected:
  virtual Benchmarker& device_benchmarker() = 0;

 private:
  AlgorithmExclusion excluded_;
  std::optional<ExcludingBenchmarker> allowed_;
};

}  // namespace ucudnn::cli
