#pragma once
// The GPU as a planner device: measures cuDNN's algorithms at a micro-batch with CUDA events
// on the handle's stream (warm-up, then the median of repeats), on scratch buffers of its
// own so that the caller's tensors are never touched. An algorithm cuDNN refuses is "not
// supported"; memory that cannot be allocated now, or events that fail, throw
// MeasurementUnavailable (nothing to remember).
#include <map>
#include <memory>

#include "core/benchmarker.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/device_memory.h"

namespace ucudnn::cudnn {

struct GpuBenchmarkOptions {
  int warmup = 1;
  int repeats = 3;  // median of these
};

class CudnnBenchmarker final : public Benchmarker {
 public:
  // `fingerprint`: of the handle's device (gpu_fingerprint; computed once per device, since
  // cudaGetDeviceProperties is slow).
  CudnnBenchmarker(const CudnnApi& api, const CudaRuntime& runtime, cudnnHandle_t handle,
                   DeviceFingerprint fingerprint, GpuBenchmarkOptions options = {});

  std::string backend_name() const override { return "cudnn"; }
  // GPU name, compute capability, SM count, memory size, cuDNN and ucudnn versions.
  DeviceFingerprint fingerprint() const override { return fingerprint_; }
  std::vector<std::string> algorithms(const KernelKey& kernel) override;
  std::optional<Measurement> benchmark(const KernelKey& kernel, const std::string& algorithm,
                                       std::int64_t micro_batch) override;

 private:
  // x, w and y of the kernel at its full batch, reused for every micro-batch of it.
  struct Scratch {
    DeviceBuffer x, w, y;
  };
  Scratch* scratch_for(const KernelKey& kernel);

  const CudnnApi& api_;
  const CudaRuntime& runtime_;
  cudnnHandle_t handle_;
  GpuBenchmarkOptions options_;
  DeviceFingerprint fingerprint_;
  std::string scratch_key_;
  std::unique_ptr<Scratch> scratch_;
};

// The fingerprint of the current device and the loaded cuDNN.
DeviceFingerprint gpu_fingerprint(const CudnnApi& api, const CudaRuntime& runtime);

}  // namespace ucudnn::cudnn
