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

HostTensors& CpuBenchmarker::whole_batch_tensors(const ConvolutionProblem& problem) {
  if (!whole_batch_ || tensors_problem_ != problem) {
    whole_batch_.reset();  // before the next allocation: never both at once
    std::mt19937_64 random(std::random_device{}());
    whole_batch_ = std::make_unique<HostTensors>(problem, random);
    tensors_problem_ = problem;
  }
  return *whole_batch_;
}

std::optional<Measurement> CpuBenchmarker::benchmark(const KernelKey& kernel,
                                                     const std::string& algorithm,
                                                     std::int64_t micro_batch) {
  const Solver* solver = find_solver(algorithm);
  const KernelKey micro = kernel.with_batch(micro_batch);
  const std::int64_t batch = kernel.problem.batch();
  if (!solver || micro_batch < 1 || micro_batch > batch || !solver->applies(micro))
    return std::nullopt;
  const std::size_t bytes = solver->workspace_bytes(micro);
  const std::size_t element = element_size(kernel.problem.data_type);
  const auto x_slice =
      static_cast<std::size_t>(kernel.problem.x.strides[0] * micro_batch) * element;
  const auto y_slice =
      static_cast<std::size_t>(kernel.problem.y.strides[0] * micro_batch) * element;
  const std::int64_t slices = batch / micro_batch;
  // The fastest solver of this shape that needs no more workspace: one stopped early is
  // dominated by it (slower, and more workspace), at every limit.
  const std::pair<std::string, std::int64_t> shape{kernel.to_string(), micro_batch};
  const std::optional<double> bound = early_stop_.bound(shape, bytes);
  std::vector<double> times;
  try {
    // Inside the try: a batch too large for this machine's memory is "not supported".
    const Tensors whole = whole_batch_tensors(kernel.problem).tensors();
    AlignedBuffer workspace(bytes);
    const Workspace ws{workspace.data(), bytes};
    auto slice = [&](std::int64_t i) {
      Tensors t = whole;
      t.x = static_cast<std::byte*>(whole.x) + static_cast<std::size_t>(i) * x_slice;
      t.y = static_cast<std::byte*>(whole.y) + static_cast<std::size_t>(i) * y_slice;
      return t;
    };
    const bool accumulates = kernel.operation == Operation::kBackwardFilter;
    // One slice's run, in ms.
    auto run = [&](std::int64_t i) {
      const auto start = std::chrono::steady_clock::now();
      solver->run(micro, slice(i), {1, accumulates && i > 0 ? 1.0 : 0.0}, ws, pool_);
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
    };
    // Untimed: the warm-up pays the first touch of a fresh workspace (page faults), which the
    // GPU's warm-up does not, so the CPU stops only at its first timed slice (the slow rule).
    for (int i = 0; i < options_.warmup; ++i) run(0);
    bool stopped = false;
    double spent = 0;
    while (!stopped &&
           (times.empty() || (times.size() < static_cast<std::size_t>(options_.repeats) &&
                              spent < options_.max_seconds * 1e3))) {
      for (std::int64_t i = 0; i < slices; ++i) {
        const double ms = run(i);
        spent += ms;
        times.push_back(ms);
        if (times.size() == 1 && bound && early_stop_.slow(ms, *bound)) {
          stopped = true;
          break;
        }
      }
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
  const Measurement m{times[times.size() / 2], bytes, times.front(), times.back(),
                      static_cast<int>(times.size())};
  early_stop_.measured(shape, bytes, m.time_ms);
  return m;
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
