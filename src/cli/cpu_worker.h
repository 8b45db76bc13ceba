#pragma once
// The CPU as a `ucudnn bench` worker: a thread pool over the physical cores and the CPU
// backend's benchmarker.
#include <memory>

#include "cpu_benchmarker.h"
#include "thread_pool.h"
#include "worker.h"

namespace ucudnn::cli {

class CpuWorker final : public Worker {
 public:
  explicit CpuWorker(int repeats);

  Benchmarker& benchmarker() override { return benchmarker_; }
  std::string description() const override;
  std::optional<double> run_ms(const KernelKey& kernel, const Configuration& configuration,
                               int repeats) override;
  unsigned threads() const { return pool_.size(); }

 private:
  cpu::ThreadPool pool_;
  cpu::CpuBenchmarker benchmarker_;
};

// Why this process cannot run `threads` threads on their own cores (nullopt: it can). mpirun
// binds each rank to one core by default: oneDNN then plans for one thread, and measurements
// stored under a fingerprint of every core would be wrong.
std::optional<std::string> cpu_binding_problem(unsigned threads);

}  // namespace ucudnn::cli
