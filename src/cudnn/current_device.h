#pragma once
// The handle's device made current around work ucudnn does for it (benchmarks, scratch and
// arena allocations): cuDNN binds a handle to a device, the application may have another
// current on this thread.
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

}  // namespace ucudnn::cudnn
