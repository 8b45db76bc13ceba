#pragma once
// The GPU as a planner device: measures cuDNN's algorithms at a micro-batch with CUDA events
// on the handle's stream (warm-up, then the median of repeats), on scratch buffers of its
// own so that the caller's tensors are never touched, or in the caller's buffers when it
// gives them (Find*Ex, which cuDNN documents may overwrite its output). It never holds more
// workspace than its limit: an algorithm that needs more is not run (WorkspaceOverLimit), and
// one workspace serves every measurement of a kernel. An algorithm cuDNN refuses
// (NOT_SUPPORTED, BAD_PARAM) is "not supported"; anything else (memory that cannot be
// allocated now, execution failures, events that fail) throws MeasurementUnavailable:
// nothing to remember.
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "core/benchmarker.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/device_memory.h"

namespace ucudnn::cudnn {

// The caller's tensors at the full batch and its workspace (Find*Ex).
struct CallerBuffers {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

struct GpuBenchmarkOptions {
  int warmup = 1;
  int repeats = 3;  // median of these
  std::uint64_t workspace_limit = std::numeric_limits<std::uint64_t>::max();
  std::optional<CallerBuffers> caller;

  static GpuBenchmarkOptions with_repeats(int repeats) {
    GpuBenchmarkOptions options;
    options.repeats = repeats;
    return options;
  }
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
  // x, w and y of the kernel for micro-batches up to `batch` images, reused for each of them.
  struct Scratch {
    DeviceBuffer x, w, y;
    std::int64_t batch = 0;
  };
  // The full batch when the device has room for it, else just `micro_batch` images; a size
  // that could not be allocated is not tried again for this kernel.
  Scratch* scratch_for(const KernelKey& kernel, std::int64_t micro_batch);
  // A workspace of at least `bytes` (within the limit): the caller's, or one of ours that
  // grows to the largest any algorithm of the kernel needs within the limit.
  void* workspace_for(const KernelKey& kernel, std::size_t bytes);

  const CudnnApi& api_;
  const CudaRuntime& runtime_;
  cudnnHandle_t handle_;
  GpuBenchmarkOptions options_;
  DeviceFingerprint fingerprint_;
  std::string scratch_key_;
  std::unique_ptr<Scratch> scratch_;
  std::int64_t scratch_failed_at_ = 0;  // the smallest batch of scratch_key_ that did not fit
  std::optional<DeviceBuffer> workspace_;
  std::size_t workspace_failed_at_ = 0;  // the smallest workspace that could not be allocated
};

}  // namespace ucudnn::cudnn
