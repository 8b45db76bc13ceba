#pragma once
// The CPU as a planner device: benchmarks solvers for real (fresh random buffers, the exact
// workspace a solver states, warm-up, median of repeats), so that the WR dynamic program and
// the WD integer program plan micro-batches on the CPU as they will on the GPU.
#include "core/benchmarker.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

struct BenchmarkOptions {
  int warmup = 1;
  int repeats = 3;           // median of these
  double max_seconds = 0.5;  // fewer repeats (at least one) when a run is slower than this
};

class CpuBenchmarker final : public Benchmarker {
 public:
  CpuBenchmarker(ThreadPool& pool, BenchmarkOptions options = {})
      : pool_(pool), options_(options) {}

  std::string backend_name() const override { return "cpu"; }
  // CPU model, physical cores in use, the BLAS kernel, oneDNN and ucudnn versions.
  DeviceFingerprint fingerprint() const override;
  std::vector<std::string> algorithms(const KernelKey& kernel) override;
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;

 private:
  ThreadPool& pool_;
  BenchmarkOptions options_;
};

}  // namespace ucudnn::cpu
