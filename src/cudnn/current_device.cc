#include "cudnn/current_device.h"

namespace ucudnn::cudnn {

CurrentDevice::CurrentDevice(const CudaRuntime& runtime, int device) : runtime_(runtime) {
  int current = -1;
  if (runtime_.cudaGetDevice(&current) != cudaSuccess) {
    runtime_.cudaGetLastError();
    return;
  }
  if (current == device) {
    ok_ = true;
    return;
  }
  if (runtime_.cudaSetDevice(device) != cudaSuccess) {
    runtime_.cudaGetLastError();
    return;
  }
  previous_ = current;
  ok_ = true;
}

CurrentDevice::~CurrentDevice() {
  if (previous_ >= 0) runtime_.cudaSetDevice(previous_);
}

std::optional<DeviceMemoryInfo> device_memory_info(const CudaRuntime& runtime, int device) {
  DeviceMemoryInfo info;
  const CurrentDevice on(runtime, device);
  if (!on.ok() || runtime.cudaMemGetInfo(&info.free, &info.total) != cudaSuccess) {
    runtime.cudaGetLastError();
    return std::nullopt;
  }
  return info;
}

}  // namespace ucudnn::cudnn
