#pragma once
// Owners of CUDA device memory and events, released through the resolved runtime. A failed
// allocation clears the runtime's last error: the application's own error checks
// (cudaGetLastError after its kernels) must never see ucudnn's failures.
#include <cstddef>
#include <optional>
#include <utility>

#include "cudnn/cuda_runtime.h"

namespace ucudnn::cudnn {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // nullopt when the device has no room (or no device); 0 bytes gives an empty buffer.
  static std::optional<DeviceBuffer> allocate(const CudaRuntime& runtime, std::size_t bytes) {
    DeviceBuffer buffer;
    if (bytes == 0) return buffer;
    if (!runtime.cudaMalloc || runtime.cudaMalloc(&buffer.data_, bytes) != cudaSuccess) {
      if (runtime.cudaGetLastError) runtime.cudaGetLastError();
      buffer.data_ = nullptr;
      return std::nullopt;
    }
    buffer.runtime_ = &runtime;
    buffer.bytes_ = bytes;
    return buffer;
  }
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer other) noexcept {
    swap(other);
    return *this;
  }
  ~DeviceBuffer() {
    if (data_) runtime_->cudaFree(data_);
  }

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(runtime_, other.runtime_);
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
  }
  const CudaRuntime* runtime_ = nullptr;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class CudaEvent {
 public:
  explicit CudaEvent(const CudaRuntime& runtime) : runtime_(runtime) {
    if (runtime_.cudaEventCreate(&event_) != cudaSuccess) {
      runtime_.cudaGetLastError();
      event_ = nullptr;
    }
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  ~CudaEvent() {
    if (event_) runtime_.cudaEventDestroy(event_);
  }
  bool valid() const { return event_ != nullptr; }
  cudaEvent_t get() const { return event_; }

 private:
  const CudaRuntime& runtime_;
  cudaEvent_t event_ = nullptr;
};

}  // namespace ucudnn::cudnn
