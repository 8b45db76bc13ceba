#include "cpu_benchmarker.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <new>
#include <random>

#include <oneapi/dnnl/dnnl.h>

#include "aligned_buffer.h"
#include "gemm.h"
#include "host_tensors.h"
#include "solver_registry.h"

namespace ucudnn::cpu {

std::vector<std::string> CpuBenchmarker::algorithms(const KernelKey& kernel) {
  std::vector<std::string> names;
  for (const auto* solver : all_solvers())
    if (solver->applies(kernel)) names.emplace_back(solver->name());
  return names;
}

std::optional<Measurement> CpuBenchmarker::benchmark(const KernelKey& kernel,
                                                     const std::string& algorithm,
                                                     std::int64_t micro_batch) {
  const Solver* solver = find_solver(algorithm);
  const KernelKey micro = kernel.with_batch(micro_batch);
  if (!solver || !solver->applies(micro)) return std::nullopt;
  const std::size_t bytes = solver->workspace_bytes(micro);
  std::vector<double> times;
  try {
    // Inside the try: a micro-batch too large for this machine's memory is "not supported".
    std::mt19937_64 random(std::random_device{}());
    HostTensors buffers(micro.problem, random);
    AlignedBuffer workspace(bytes);
    const Workspace ws{workspace.data(), bytes};
    for (int i = 0; i < options_.warmup; ++i)
      solver->run(micro, buffers.tensors(), {1, 0}, ws, pool_);
    double spent = 0;
    for (int i = 0; i < std::max(1, options_.repeats) && (i == 0 || spent < options_.max_seconds);
         ++i) {
      const auto start = std::chrono::steady_clock::now();
      solver->run(micro, buffers.tensors(), {1, 0}, ws, pool_);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      spent += seconds;
      times.push_back(seconds * 1e3);
    }
  } catch (const std::bad_alloc&) {
    throw MeasurementUnavailable("not enough memory to benchmark CPU solver " + algorithm +
                                 " at micro-batch " + std::to_string(micro_batch));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ucudnn: warning: CPU solver %s failed on %s: %s\n", algorithm.c_str(),
                 micro.to_string().c_str(), error.what());
    return std::nullopt;
  }
  std::sort(times.begin(), times.end());
  return Measurement{times[times.size() / 2], bytes, times.front(), times.back(),
                     static_cast<int>(times.size())};
}

namespace {
std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown CPU";
}
}  // namespace

DeviceFingerprint CpuBenchmarker::fingerprint() const {
  const dnnl_version_t* onednn = dnnl_version();
  return {{{"kind", "cpu"},
           {"name", cpu_model_name()},
           {"cores", std::to_string(pool_.size())},
           {"blas", blas_kernel_name()},
           {"onednn", std::to_string(onednn->major) + "." + std::to_string(onednn->minor) + "." +
                          std::to_string(onednn->patch)},
           {"ucudnn", kUcudnnVersion}}};
}

}  // namespace ucudnn::cpu
