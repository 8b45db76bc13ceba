#include "cpu_worker.h"

#include <sched.h>

#include <exception>

#include "gemm.h"
#include "side_by_side.h"

namespace ucudnn::cli {

CpuWorker::CpuWorker(int repeats) : benchmarker_(pool_, {1, repeats, 0.5, {}}) {}

std::string CpuWorker::description() const {
  return "CPU (" + std::to_string(pool_.size()) + " threads, BLAS kernel " +
         cpu::blas_kernel_name() + ")";
}

std::optional<SideBySideRuns> CpuWorker::run_side_by_side(const KernelKey& kernel,
                                                          const Configuration& plan,
                                                          const Configuration& baseline,
                                                          int repeats) {
  try {
    return cpu::run_side_by_side(kernel, plan, baseline, repeats, pool_, random_);
  } catch (const std::exception&) {  // no memory for the buffers, a solver that fails
    return std::nullopt;
  }
}

std::optional<std::string> cpu_binding_problem(unsigned threads) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return std::nullopt;
  const auto count = static_cast<unsigned>(CPU_COUNT(&allowed));
  if (count >= threads) return std::nullopt;
  return "this process may run on " + std::to_string(count) + " CPU" + (count == 1 ? "" : "s") +
         " only, but the CPU backend measures with " + std::to_string(threads) +
         " threads (one per core)";
}

}  // namespace ucudnn::cli
