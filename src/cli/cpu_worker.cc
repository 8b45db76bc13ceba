#include "cpu_worker.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>

#include "aligned_buffer.h"
#include "gemm.h"
#include "host_tensors.h"
#include "plan_executor.h"

namespace ucudnn::cli {

CpuWorker::CpuWorker(int repeats) : benchmarker_(pool_, {1, repeats, 0.5}) {}

std::string CpuWorker::description() const {
  return "CPU (" + std::to_string(pool_.size()) + " threads, BLAS kernel " +
         cpu::blas_kernel_name() + ")";
}

std::optional<double> CpuWorker::run_ms(const KernelKey& kernel, const Configuration& configuration,
                                        int repeats) {
  std::mt19937_64 random(std::random_device{}());
  cpu::HostTensors buffers(kernel.problem, random);
  cpu::AlignedBuffer workspace(cpu::configuration_workspace_bytes(kernel, configuration));
  auto run = [&] {
    cpu::run_configuration(kernel, configuration, buffers.tensors(), {1, 0},
                           {workspace.data(), workspace.size()}, pool_);
  };
  std::vector<double> times;
  run();  // warm-up
  for (int i = 0; i < std::max(1, repeats); ++i) {
    const auto start = std::chrono::steady_clock::now();
    run();
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::optional<std::string> cpu_binding_problem(unsigned threads) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return std::nullopt;
  const auto count = static_cast<unsigned>(CPU_COUNT(&allowed));
  if (count >= threads) return std::nullopt;
  return "this process may run on " + std::to_string(count) + " CPU" + (count == 1 ? "" : "s") +
         " only, but the CPU backend measures with " + std::to_string(threads) +
         " threads (one per core): run mpirun with --bind-to none (and one rank per node, "
         "--map-by ppr:1:node)";
}

}  // namespace ucudnn::cli
