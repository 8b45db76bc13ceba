// libucudnn_host.so: the CPU backend as the shim's host side of CPU/GPU hybrid
// (core/host_backend.h). Loaded by the shim with RTLD_LOCAL when UCUDNN_HYBRID asks for it;
// exports one function.
#include <mutex>

#include "core/host_backend.h"
#include "cpu_benchmarker.h"
#include "plan_executor.h"
#include "reference.h"
#include "thread_pool.h"

namespace ucudnn::cpu {
namespace {

// Serializes the CPU's measurements: two at once would time each other's load.
class LockedBenchmarker final : public Benchmarker {
 public:
  explicit LockedBenchmarker(Benchmarker& inner) : inner_(inner) {}
  std::string backend_name() const override { return inner_.backend_name(); }
  DeviceFingerprint fingerprint() const override { return inner_.fingerprint(); }
  std::vector<std::string> algorithms(const KernelKey& kernel) override {
    return inner_.algorithms(kernel);
  }
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override {
    std::lock_guard lock(mutex_);
    return inner_.benchmark(kernel, algorithm, micro_batch);
  }

 private:
  Benchmarker& inner_;
  std::mutex mutex_;
};

class CpuHostBackend final : public HostBackend {
 public:
  Benchmarker& benchmarker() override { return locked_; }
  std::size_t workspace_bytes(const KernelKey& kernel,
                              const Configuration& configuration) override {
    return configuration_workspace_bytes(kernel, configuration);
  }
  void run(const KernelKey& kernel, const Configuration& configuration, const Tensors& tensors,
           double alpha, double beta, void* workspace, std::size_t bytes) override {
    run_configuration(kernel, configuration, {tensors.x, tensors.w, tensors.y}, {alpha, beta},
                      {workspace, bytes}, pool_);
  }
  void run_reference(const KernelKey& kernel, const Tensors& tensors, double alpha,
                     double beta) override {
    reference_convolution(kernel, {tensors.x, tensors.w, tensors.y}, {alpha, beta});
  }

 private:
  ThreadPool pool_;
  CpuBenchmarker measuring_{pool_};
  LockedBenchmarker locked_{measuring_};
};

}  // namespace
}  // namespace ucudnn::cpu

extern "C" __attribute__((visibility("default"))) ucudnn::HostBackend* ucudnn_host_backend_v1() {
  // Never destroyed: host functions queued on a stream may still run at exit.
  static auto* backend = new ucudnn::cpu::CpuHostBackend;
  return backend;
}
