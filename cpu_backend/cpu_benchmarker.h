#pragma once
// The CPU as a planner device: benchmarks solvers for real, so that the WR dynamic program
// and the WD integer program plan micro-batches on the CPU as they will on the GPU.
//
// A micro-batch is timed as a plan runs it: on consecutive slices of a buffer of the
// kernel's whole batch (random data, kept for the kernel's next measurements), slice after
// slice, BackwardFilter accumulating from the second slice on, with the exact workspace the
// solver states. Timing one small slice again and again would keep its data in cache and
// favour small micro-batches the real run then finds slower.
#include <memory>
#include <optional>

#include "core/benchmarker.h"
#include "core/early_stop.h"
#include "host_tensors.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

struct BenchmarkOptions {
  int warmup = 1;            // runs of the first slice
  int repeats = 3;           // at least this many slices timed (whole passes); the median kept
  double max_seconds = 0.5;  // no further pass once this much time is spent
  // Per slice, at the first timed slice only (core/early_stop.h's slow rule): the warm-up run
  // pays the first touch of a fresh workspace, so it is not timed.
  EarlyStopRule early_stop;
};

// Thread-compatible: one measurement at a time (they would time each other's load anyway).
class CpuBenchmarker final : public Benchmarker {
 public:
  CpuBenchmarker(ThreadPool& pool, BenchmarkOptions options = {})
      : pool_(pool), options_(options), early_stop_(options.early_stop) {}

  std::string backend_name() const override { return "cpu"; }
  // CPU model, physical cores in use, the BLAS kernel, oneDNN and ucudnn versions.
  DeviceFingerprint fingerprint() const override;
  std::vector<std::string> algorithms(const KernelKey& kernel) override;
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;

 private:
  HostTensors& whole_batch_tensors(const ConvolutionProblem& problem);

  ThreadPool& pool_;
  BenchmarkOptions options_;
  EarlyStop early_stop_;  // what was measured at each (kernel text, micro-batch)
  std::optional<ConvolutionProblem> tensors_problem_;  // the problem whole_batch_ holds
  std::unique_ptr<HostTensors> whole_batch_;
};

}  // namespace ucudnn::cpu
