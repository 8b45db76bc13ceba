#include "cudnn_workers.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/device_memory.h"
#include "cudnn/gpu_fingerprint.h"
#include "cudnn/side_by_side.h"

namespace ucudnn::cli {

namespace {

using cudnn::CudaRuntime;
using cudnn::CudnnApi;

std::string cuda_error(const CudaRuntime& runtime, cudaError_t status) {
  const char* text = runtime.cudaGetErrorString(status);
  runtime.cudaGetLastError();
  return std::string(text ? text : "unknown error") + " (" + std::to_string(status) + ")";
}

// One GPU: a stream of its own (so that GPUs of one process never share a stream), a
// handle on it, and the benchmarker. Created and destroyed with the device current.
class GpuWorker final : public Worker {
 public:
  static Expected<std::unique_ptr<GpuWorker>> open(
      const CudnnApi& api, const CudaRuntime& runtime, int device, std::string model,
      std::string address, int repeats, std::optional<std::uint64_t> knob_variants_over) {
    std::unique_ptr<GpuWorker> worker(new GpuWorker(api, runtime, device, std::move(model)));
    worker->address_ = std::move(address);
    if (auto status = runtime.cudaSetDevice(device); status != cudaSuccess)
      return Error{"cudaSetDevice(" + std::to_string(device) + "): " + cuda_error(runtime, status)};
    if (auto status = runtime.cudaStreamCreate(&worker->stream_); status != cudaSuccess)
      return Error{"GPU " + std::to_string(device) +
                   ": cudaStreamCreate: " + cuda_error(runtime, status)};
    if (auto status = api.cudnnCreate(&worker->handle_); status != CUDNN_STATUS_SUCCESS) {
      worker->handle_ = nullptr;
      return Error{"GPU " + std::to_string(device) + ": cudnnCreate failed with " +
                   api.cudnnGetErrorString(status) +
                   ": no usable GPU, driver or cuDNN for this device"};
    }
    api.cudnnSetStream(worker->handle_, worker->stream_);
    auto fingerprint = cudnn::gpu_fingerprint(api, runtime, device);
    if (!fingerprint)
      return Error{fingerprint.error() + ": its measurements could not be told from another's"};
    auto options = cudnn::GpuBenchmarkOptions::with_repeats(repeats);
    options.knob_variants_over = knob_variants_over;
    worker->benchmarker_ = std::make_unique<cudnn::CudnnBenchmarker>(api, runtime, worker->handle_,
                                                                     *fingerprint, options);
    return worker;
  }

  ~GpuWorker() override {
    runtime_.cudaSetDevice(device_);
    benchmarker_.reset();
    if (handle_) api_.cudnnDestroy(handle_);
    if (stream_) runtime_.cudaStreamDestroy(stream_);
  }
  GpuWorker(const GpuWorker&) = delete;
  GpuWorker& operator=(const GpuWorker&) = delete;

  void enter_thread() override { runtime_.cudaSetDevice(device_); }
  std::string description() const override {
    return "GPU " + std::to_string(device_) + " (" + model_ + ")";
  }
  std::string address() const override { return "PCI " + address_; }

  std::optional<SideBySideRuns> run_side_by_side(const KernelKey& kernel, const Configuration& plan,
                                                 const Configuration& baseline,
                                                 int repeats) override {
    enter_thread();
    return cudnn::run_side_by_side(api_, runtime_, handle_, kernel, plan, baseline, repeats,
                                   random_);
  }

 private:
  Benchmarker& device_benchmarker() override { return *benchmarker_; }

  GpuWorker(const CudnnApi& api, const CudaRuntime& runtime, int device, std::string model)
      : api_(api), runtime_(runtime), device_(device), model_(std::move(model)) {}

  const CudnnApi& api_;
  const CudaRuntime& runtime_;
  int device_;
  std::string model_;
  std::string address_;  // on the PCI bus
  cudaStream_t stream_ = nullptr;
  cudnnHandle_t handle_ = nullptr;
  std::unique_ptr<cudnn::CudnnBenchmarker> benchmarker_;
  std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace

Expected<std::vector<std::unique_ptr<Worker>>> open_gpu_workers(
    const DeviceChoice& choice, const Cluster& cluster, int repeats,
    std::optional<std::uint64_t> knob_variants_over) {
  const CudnnApi& api = cudnn::cudnn_api();
  if (!api.complete())
    return Error{"--backend cudnn: cannot use cuDNN 9: libcudnn.so.9 was not found or lacks " +
                 api.missing + "; install cuDNN 9 or add its folder to LD_LIBRARY_PATH"};
  const CudaRuntime& runtime = cudnn::cuda_runtime();
  if (!runtime.complete())
    return Error{
        "--backend cudnn: cannot use the CUDA runtime: libcudart.so.13 was not found or "
        "lacks " +
        runtime.missing + "; install CUDA 13 or add its folder to LD_LIBRARY_PATH"};
  int count = 0, current = 0;
  if (auto status = runtime.cudaGetDeviceCount(&count); status != cudaSuccess)
    return Error{"--backend cudnn: no usable GPU: cudaGetDeviceCount: " +
                 cuda_error(runtime, status)};
  if (count <= 0) return Error{"--backend cudnn: no GPU on this machine"};
  if (auto status = runtime.cudaGetDevice(&current); status != cudaSuccess)
    return Error{"--backend cudnn: cudaGetDevice: " + cuda_error(runtime, status)};

  // In a cluster, "the current device" means "this rank's": every rank of a node starts on
  // device 0, and the node's devices are shared out by local rank.
  DeviceChoice effective = choice;
  if (cluster.size() > 1 && !choice.explicit_choice()) effective.kind = DeviceChoice::Kind::kAll;
  auto all = resolve_devices(effective, count, current);
  if (!all) return Error{all.error()};
  const std::vector<int> devices =
      cluster.size() > 1 ? devices_of_local_rank(*all, cluster.local_rank(), cluster.local_size())
                         : *all;

  std::vector<std::pair<int, std::string>> models;
  std::vector<std::string> addresses;  // PCI: the same GPU whatever CUDA_VISIBLE_DEVICES numbers it
  for (int device : devices) {
    cudaDeviceProp properties{};
    if (auto status = runtime.cudaGetDeviceProperties(&properties, device); status != cudaSuccess)
      return Error{"GPU " + std::to_string(device) +
                   ": cudaGetDeviceProperties: " + cuda_error(runtime, status)};
    models.emplace_back(device, properties.name);
    char address[32];
    std::snprintf(address, sizeof address, "%04x:%02x:%02x", properties.pciDomainID & 0xffff,
                  properties.pciBusID & 0xff, properties.pciDeviceID & 0xff);
    addresses.emplace_back(address);
  }
  if (auto mixed = mixed_models_error(models)) return Error{"--devices: " + *mixed};

  std::vector<std::unique_ptr<Worker>> workers;
  for (std::size_t i = 0; i < models.size(); ++i) {
    const auto& [device, model] = models[i];
    auto worker =
        GpuWorker::open(api, runtime, device, model, addresses[i], repeats, knob_variants_over);
    if (!worker) return Error{worker.error()};
    workers.push_back(std::move(worker).value());
  }
  runtime.cudaSetDevice(devices.front());
  return workers;
}

}  // namespace ucudnn::cli
