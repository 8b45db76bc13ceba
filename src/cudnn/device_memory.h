#pragma once
// Owners of CUDA device memory, pinned host memory, streams and events, released through the
// resolved runtime. A failed allocation clears the runtime's last error: the application's own
// error checks (cudaGetLastError after its kernels) must never see ucudnn's failures.
#include <cstddef>
#include <optional>
#include <utility>

#include "cudnn/cuda_runtime.h"

namespace ucudnn::cudnn {

// Memory the runtime gave and takes back through its `Release` member (cudaFree for device
// memory, cudaFreeHost for pinned host memory); movable, not copyable.
template <auto Release>
class RuntimeMemory {
 public:
  RuntimeMemory() = default;
  RuntimeMemory(RuntimeMemory&& other) noexcept { swap(other); }
  RuntimeMemory& operator=(RuntimeMemory other) noexcept {
    swap(other);
    return *this;
  }
  ~RuntimeMemory() {
    if (data_) (runtime_->*Release)(data_);
  }

  void* data() const { return data_; }
  std::size_t size() const { return bytes_; }

 protected:
  // `allocate(&pointer)` returns the runtime's status; nullopt (the error cleared) when it
  // fails; 0 bytes gives an empty buffer without asking.
  template <typename Owner, typename Allocate>
  static std::optional<Owner> take(const CudaRuntime& runtime, std::size_t bytes,
                                   Allocate allocate) {
    Owner owner;
    RuntimeMemory& memory = owner;  // its members are ours to set
    if (bytes == 0) return owner;
    if (allocate(&memory.data_) != cudaSuccess) {
      if (runtime.cudaGetLastError) runtime.cudaGetLastError();
      memory.data_ = nullptr;
      return std::nullopt;
    }
    memory.runtime_ = &runtime;
    memory.bytes_ = bytes;
    return owner;
  }

 private:
  void swap(RuntimeMemory& other) noexcept {
    std::swap(runtime_, other.runtime_);
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
  }
  const CudaRuntime* runtime_ = nullptr;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class DeviceBuffer : public RuntimeMemory<&CudaRuntime::cudaFree> {
 public:
  // nullopt when the device has no room (or no device).
  static std::optional<DeviceBuffer> allocate(const CudaRuntime& runtime, std::size_t bytes) {
    return take<DeviceBuffer>(runtime, bytes, [&](void** data) {
      return runtime.cudaMalloc ? runtime.cudaMalloc(data, bytes) : cudaErrorInitializationError;
    });
  }
};

// Page-locked host memory: what makes a copy to or from the device asynchronous to the host.
class PinnedBuffer : public RuntimeMemory<&CudaRuntime::cudaFreeHost> {
 public:
  static std::optional<PinnedBuffer> allocate(const CudaRuntime& runtime, std::size_t bytes) {
    return take<PinnedBuffer>(runtime, bytes, [&](void** data) {
      return runtime.cudaHostAlloc(data, bytes, cudaHostAllocDefault);
    });
  }
};

// A stream of ucudnn's own, non-blocking: it never waits for the legacy stream's work, nor
// makes the application's wait for its own.
class CudaStream {
 public:
  explicit CudaStream(const CudaRuntime& runtime) : runtime_(runtime) {
    if (runtime_.cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) != cudaSuccess) {
      runtime_.cudaGetLastError();
      stream_ = nullptr;
    }
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() {
    if (stream_) runtime_.cudaStreamDestroy(stream_);
  }
  bool valid() const { return stream_ != nullptr; }
  cudaStream_t get() const { return stream_; }

 private:
  const CudaRuntime& runtime_;
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  // cudaEventDisableTiming for events that only order streams (cheaper to record and wait).
  explicit CudaEvent(const CudaRuntime& runtime, unsigned flags = cudaEventDefault)
      : runtime_(runtime) {
    if (runtime_.cudaEventCreateWithFlags(&event_, flags) != cudaSuccess) {
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
