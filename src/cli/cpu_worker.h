#pragma once
// The CPU as a `ucudnn bench` worker: a thread pool over the physical cores and the CPU
// backend's benchmarker.
#include <memory>
#include <random>

#include "cpu_benchmarker.h"
#include "thread_pool.h"
#include "worker.h"

namespace ucudnn::cli {

class CpuWorker final : public Worker {
 public:
  explicit CpuWorker(int repeats);

  std::string description() const override;
  std::optional<SideBySideRuns> run_side_by_side(const KernelKey& kernel, const Configuration& plan,
                                                 const Configuration& baseline,
                                                 int repeats) override;
  unsigned threads() const { return pool_.size(); }

 private:
  Benchmarker& device_benchmarker() override { return benchmarker_; }

  cpu::ThreadPool pool_;
  cpu::CpuBenchmarker benchmarker_;
  std::mt19937_64 random_{std::random_device{}()};
};

// Why this process cannot run `threads` threads on their own cores (nullopt: it can). mpirun
// binds each rank to one core by default: oneDNN then plans for one thread, and measurements
// stored under a fingerprint of every core would be wrong.
std::optional<std::string> cpu_binding_problem(unsigned threads);

}  // namespace ucudnn::cli
