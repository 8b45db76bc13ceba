#include "cudnn/gpu_fingerprint.h"

#include <cstring>
#include <string>

#include "cudnn/current_device.h"

namespace ucudnn::cudnn {

Expected<DeviceFingerprint> gpu_fingerprint(const CudnnApi& api, const CudaRuntime& runtime,
                                            int device) {
  auto unreadable = [&](const char* field) -> Error {
    runtime.cudaGetLastError();
    return Error{"cannot read the " + std::string(field) + " of GPU " + std::to_string(device)};
  };
  // The process's runtime may be older than our headers (PyTorch brings libcudart.so.12), and
  // cudaDeviceProp changed layout between versions: only its first field, the name, is read,
  // from a buffer larger than any version's struct; the rest comes from attributes, whose
  // numbers never change.
  alignas(cudaDeviceProp) static thread_local unsigned char properties[16384];
  if (runtime.cudaGetDeviceProperties(reinterpret_cast<cudaDeviceProp*>(properties), device) !=
      cudaSuccess)
    return unreadable("name");
  const char* name_field = reinterpret_cast<const char*>(properties);
  const std::string name(name_field, strnlen(name_field, sizeof(cudaDeviceProp::name)));
  if (name.empty()) return unreadable("name");
  int major = 0, minor = 0, sms = 0, driver = 0, runtime_version = 0;
  if (runtime.cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) !=
          cudaSuccess ||
      runtime.cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) !=
          cudaSuccess)
    return unreadable("compute capability");
  if (runtime.cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess)
    return unreadable("multiprocessor count");
  const auto memory = device_memory_info(runtime, device);
  if (!memory || memory->total == 0) return unreadable("memory size");
  if (runtime.cudaDriverGetVersion(&driver) != cudaSuccess || driver <= 0)
    return unreadable("driver version");
  if (runtime.cudaRuntimeGetVersion(&runtime_version) != cudaSuccess || runtime_version <= 0)
    return unreadable("CUDA runtime version");
  const std::size_t cudnn_version = api.cudnnGetVersion();
  if (cudnn_version == 0) return unreadable("cuDNN version");
  return DeviceFingerprint{{{"kind", "gpu"},
                            {"name", name},
                            {"cc", std::to_string(major) + "." + std::to_string(minor)},
                            {"sms", std::to_string(sms)},
                            {"memory", std::to_string(memory->total)},
                            {"driver", std::to_string(driver)},
                            {"runtime", std::to_string(runtime_version)},
                            {"cudnn", std::to_string(cudnn_version)},
                            {"ucudnn", kUcudnnVersion}}};
}

Expected<DeviceFingerprint> current_gpu_fingerprint(const CudnnApi& api,
                                                    const CudaRuntime& runtime) {
  int device = 0;
  if (runtime.cudaGetDevice(&device) != cudaSuccess) {
    runtime.cudaGetLastError();
    return Error{"cannot tell which GPU is current"};
  }
  return gpu_fingerprint(api, runtime, device);
}

}  // namespace ucudnn::cudnn
