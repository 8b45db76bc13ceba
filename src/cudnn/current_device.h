#pragma once
// The handle's device made current around work ucudnn does for it (benchmarks, scratch and
// arena allocations): cuDNN binds a handle to a device, the application may have another
// current on this thread.
#include <cstddef>
#include <optional>

#include "cudnn/cuda_runtime.h"

namespace ucudnn::cudnn {

// Makes `device` current for the guard's lifetime, when it is not already (a host-side
// switch: no synchronization).
class CurrentDevice {
 public:
  CurrentDevice(const CudaRuntime& runtime, int device);
  ~CurrentDevice();
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;
  bool ok() const { return ok_; }

 private:
  const CudaRuntime& runtime_;
  int previous_ = -1;
  bool ok_ = false;
};

// `device`'s free and total memory (cudaMemGetInfo, which answers for the current device only,
// with `device` made current around it; no synchronization); nullopt, the runtime's last error
// cleared, where the runtime cannot tell.
struct DeviceMemoryInfo {
  std::size_t free = 0, total = 0;
};
std::optional<DeviceMemoryInfo> device_memory_info(const CudaRuntime& runtime, int device);

}  // namespace ucudnn::cudnn
