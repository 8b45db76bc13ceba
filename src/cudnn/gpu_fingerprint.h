#pragma once
// What identifies a GPU's measurements: the device (name, compute capability, SMs, memory)
// and the software that ran them (driver, CUDA runtime, cuDNN, ucudnn). Taken for a given
// device ordinal, the handle's, whatever device is current.
#include "core/device_fingerprint.h"
#include "core/expected.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

// The error names the field that could not be read: then nothing may be stored under the
// device, since an "unknown" fingerprint would mix the measurements of different machines.
Expected<DeviceFingerprint> gpu_fingerprint(const CudnnApi& api, const CudaRuntime& runtime,
                                            int device);

// The current device's fingerprint (the command-line tools, which set the device first).
Expected<DeviceFingerprint> current_gpu_fingerprint(const CudnnApi& api,
                                                    const CudaRuntime& runtime);

}  // namespace ucudnn::cudnn
