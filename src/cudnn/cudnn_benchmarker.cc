#include "cudnn/cudnn_benchmarker.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "cudnn/algorithms.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/event_timer.h"
#include "cudnn/micro_batch_descriptors.h"
#include "cudnn/scaling.h"

namespace ucudnn::cudnn {

DeviceFingerprint gpu_fingerprint(const CudnnApi& api, const CudaRuntime& runtime) {
  // The process's runtime may be older than our headers (PyTorch brings libcudart.so.12), and
  // cudaDeviceProp changed layout between versions: only its first field, the name, is read,
  // from a buffer larger than any version's struct; the rest comes from attributes, whose
  // numbers never change.
  alignas(cudaDeviceProp) static thread_local unsigned char properties[16384];
  int device = 0, major = 0, minor = 0, sms = 0;
  std::size_t free = 0, total = 0;
  if (runtime.cudaGetDevice(&device) != cudaSuccess ||
      runtime.cudaGetDeviceProperties(reinterpret_cast<cudaDeviceProp*>(properties), device) !=
          cudaSuccess ||
      runtime.cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
          cudaSuccess ||
      runtime.cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) !=
          cudaSuccess ||
      runtime.cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      runtime.cudaMemGetInfo(&free, &total) != cudaSuccess) {
    runtime.cudaGetLastError();
    return {{{"kind", "gpu"}, {"name", "unknown"}, {"ucudnn", kUcudnnVersion}}};
  }
  const char* name = reinterpret_cast<const char*>(properties);
  return {{{"kind", "gpu"},
           {"name", std::string(name, strnlen(name, sizeof(cudaDeviceProp::name)))},
           {"cc", std::to_string(major) + "." + std::to_string(minor)},
           {"sms", std::to_string(sms)},
           {"memory", std::to_string(total)},
           {"cudnn", std::to_string(api.cudnnGetVersion())},
           {"ucudnn", kUcudnnVersion}}};
}

CudnnBenchmarker::CudnnBenchmarker(const CudnnApi& api, const CudaRuntime& runtime,
                                   cudnnHandle_t handle, DeviceFingerprint fingerprint,
                                   GpuBenchmarkOptions options)
    : api_(api),
      runtime_(runtime),
      handle_(handle),
      options_(options),
      fingerprint_(std::move(fingerprint)) {}

std::vector<std::string> CudnnBenchmarker::algorithms(const KernelKey& kernel) {
  return algorithm_names(kernel.operation);
}

namespace {

// cuDNN's answer that the algorithm does not apply; any other failure may be transient.
bool refusal(cudnnStatus_t status) {
  return status == CUDNN_STATUS_NOT_SUPPORTED || status == CUDNN_STATUS_BAD_PARAM;
}

}  // namespace

void* CudnnBenchmarker::workspace_for(const KernelKey& kernel, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (options_.caller && bytes <= options_.caller->workspace_bytes)
    return options_.caller->workspace;
  if (workspace_ && workspace_->size() >= bytes) return workspace_->data();
  // The first allocation takes the most any algorithm needs at the full batch within the
  // limit (host-side queries), so that one workspace serves the kernel.
  std::size_t want = bytes;
  try {
    const MicroBatchDescriptors d(api_, kernel.problem, kernel.problem.batch());
    for (const auto& name : algorithm_names(kernel.operation)) {
      std::size_t need = 0;
      const auto value = algorithm_value(kernel.operation, name);
      if (value &&
          workspace_size(api_, handle_, kernel.operation,
                         {d.x.get(), d.w.get(), d.convolution.get(), d.y.get()}, *value,
                         &need) == CUDNN_STATUS_SUCCESS &&
          need <= options_.workspace_limit)
        want = std::max(want, need);
    }
  } catch (const std::exception&) {
  }
  workspace_.reset();  // the old one goes first: never two at once
  workspace_ = DeviceBuffer::allocate(runtime_, want);
  return workspace_ ? workspace_->data() : nullptr;
}

CudnnBenchmarker::Scratch* CudnnBenchmarker::scratch_for(const KernelKey& kernel) {
  // The full-batch problem covers every micro-batch (same strides, smaller N).
  const std::string key = kernel.to_string();
  if (scratch_ && scratch_key_ == key) return scratch_.get();
  scratch_.reset();
  const auto& p = kernel.problem;
  const std::size_t element = element_size(p.data_type);
  auto x = DeviceBuffer::allocate(runtime_, p.x.span_elements() * element);
  auto w = DeviceBuffer::allocate(runtime_, p.w.span_elements() * element);
  auto y = DeviceBuffer::allocate(runtime_, p.y.span_elements() * element);
  if (!x || !w || !y) return nullptr;
  cudaStream_t stream = nullptr;
  api_.cudnnGetStream(handle_, &stream);
  // Zeros, not leftovers: NaN or denormal garbage could change an algorithm's speed.
  for (const DeviceBuffer* b : {&*x, &*w, &*y})
    if (b->size()) runtime_.cudaMemsetAsync(b->data(), 0, b->size(), stream);
  scratch_ = std::make_unique<Scratch>(Scratch{std::move(*x), std::move(*w), std::move(*y)});
  scratch_key_ = key;
  return scratch_.get();
}

std::optional<Measurement> CudnnBenchmarker::benchmark(const KernelKey& kernel,
                                                       const std::string& algorithm,
                                                       std::int64_t micro_batch) {
  const auto value = algorithm_value(kernel.operation, algorithm);
  if (!value || micro_batch <= 0 || micro_batch > kernel.problem.batch()) return std::nullopt;
  try {
    const MicroBatchDescriptors d(api_, kernel.problem, micro_batch);
    const ConvolutionDescriptors descriptors{d.x.get(), d.w.get(), d.convolution.get(), d.y.get()};
    std::size_t bytes = 0;
    if (const auto status =
            workspace_size(api_, handle_, kernel.operation, descriptors, *value, &bytes);
        status != CUDNN_STATUS_SUCCESS) {
      if (refusal(status)) return std::nullopt;
      throw MeasurementUnavailable("cuDNN cannot size the workspace of " + algorithm + " now");
    }
    if (bytes > options_.workspace_limit) throw WorkspaceOverLimit(bytes);
    ConvolutionBuffers buffers;
    if (options_.caller) {
      buffers = {options_.caller->x, options_.caller->w, options_.caller->y};
    } else if (Scratch* scratch = scratch_for(kernel)) {
      buffers = {scratch->x.data(), scratch->w.data(), scratch->y.data()};
    } else {
      // The application may hold the memory now; another run will have it.
      throw MeasurementUnavailable("no device memory for the tensors of " + kernel.to_string());
    }
    void* workspace = workspace_for(kernel, bytes);
    if (bytes > 0 && !workspace)
      throw MeasurementUnavailable("no device memory to benchmark " + algorithm + " at " +
                                   std::to_string(micro_batch) + " images");
    const void* alpha = scaling_one(kernel.problem.data_type);
    const void* beta = scaling_zero(kernel.problem.data_type);
    cudnnStatus_t last = CUDNN_STATUS_SUCCESS;
    auto run = [&] {
      last = convolve(api_, handle_, kernel.operation, *value, alpha, descriptors, buffers,
                      workspace, bytes, beta);
      return last == CUDNN_STATUS_SUCCESS;
    };
    auto failed_run = [&]() -> std::optional<Measurement> {
      if (refusal(last)) return std::nullopt;
      throw MeasurementUnavailable(algorithm + " failed to run now");
    };
    for (int i = 0; i < options_.warmup; ++i)
      if (!run()) return failed_run();
    cudaStream_t stream = nullptr;
    api_.cudnnGetStream(handle_, &stream);
    const auto timed = time_with_events(runtime_, stream, options_.repeats, run);
    switch (timed.failure) {
      case EventTimes::Failure::kNone:
        break;
      case EventTimes::Failure::kRunFailed:
        return failed_run();
      case EventTimes::Failure::kNoEvents:
        throw MeasurementUnavailable("cannot create CUDA events");
      case EventTimes::Failure::kTimingFailed:
        throw MeasurementUnavailable("cannot time " + algorithm + " with CUDA events");
    }
    const auto& times = timed.sorted_ms;
    return Measurement{timed.median(), bytes, times.front(), times.back(),
                       static_cast<int>(times.size())};
  } catch (const MeasurementUnavailable&) {
    throw;
  } catch (const WorkspaceOverLimit&) {
    throw;
  } catch (const std::exception&) {
    // A descriptor cuDNN refuses at this micro-batch: the algorithm does not apply.
    return std::nullopt;
  }
}

}  // namespace ucudnn::cudnn
