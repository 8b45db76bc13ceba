// The CUDA runtime double (cudart_api.cc): the last error, error names, and the devices'
// queries (count, properties, attributes, versions), which FAKECUDA_FAIL can make fail.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstring>
#include <memory>

#include "cudart_state.h"
#include "fakecuda_hooks.h"
#include "trace.h"

using namespace ucudnn::fakecuda;
using namespace ucudnn::fakecuda::cudart;

extern "C" {

cudaError_t cudaGetLastError(void) {
  const cudaError_t status = last_error;
  last_error = cudaSuccess;
  return status;
}

cudaError_t cudaPeekAtLastError(void) {
  return last_error;
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "cudaSuccess";
    case cudaErrorInvalidValue:
      return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation:
      return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice:
      return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle:
      return "cudaErrorInvalidResourceHandle";
    case cudaErrorInvalidMemcpyDirection:
      return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNotReady:
      return "cudaErrorNotReady";
    case cudaErrorNoDevice:
      return "cudaErrorNoDevice";
    case cudaErrorStreamCaptureUnsupported:
      return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated:
      return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorStreamCaptureImplicit:
      return "cudaErrorStreamCaptureImplicit";
    case cudaErrorIllegalState:
      return "cudaErrorIllegalState";
    case cudaErrorNotPermitted:
      return "cudaErrorNotPermitted";
    default:
      return "unrecognized error code";
  }
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error";
    case cudaErrorInvalidValue:
      return "invalid argument";
    case cudaErrorMemoryAllocation:
      return "out of memory";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle:
      return "invalid resource handle";
    case cudaErrorInvalidMemcpyDirection:
      return "invalid copy direction for memcpy";
    case cudaErrorNotReady:
      return "device not ready";
    case cudaErrorNoDevice:
      return "no CUDA-capable device is detected";
    case cudaErrorStreamCaptureUnsupported:
      return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
      return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureImplicit:
      return "operation would make the legacy stream depend on a capturing blocking stream";
    case cudaErrorIllegalState:
      return "the operation is not permitted in the current state";
    case cudaErrorNotPermitted:
      return "operation not permitted";
    default:
      return "unrecognized error code";
  }
}

cudaError_t cudaGetDeviceCount(int* count) {
  if (!count) return report(cudaErrorInvalidValue);
  *count = device_count();
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  if (!device) return report(cudaErrorInvalidValue);
  *device = current_device;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  if (!valid_device(device)) return report(cudaErrorInvalidDevice);
  current_device = device;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp* prop, int device) {
  if (injected_failure("cudaGetDeviceProperties")) return report(cudaErrorNotSupported);
  if (!prop) return report(cudaErrorInvalidValue);
  if (!valid_device(device)) return report(cudaErrorInvalidDevice);
  std::memset(prop, 0, sizeof *prop);
  std::strncpy(prop->name, device_name(device).c_str(), sizeof prop->name - 1);
  prop->totalGlobalMem = runtime().memory.capacity();
  prop->major = 9;
  prop->minor = 0;
  prop->multiProcessorCount = 132;
  prop->warpSize = 32;
  prop->maxThreadsPerBlock = 1024;
  prop->sharedMemPerBlock = 48 << 10;
  prop->l2CacheSize = 50 << 20;
  prop->memoryBusWidth = 5120;
  prop->unifiedAddressing = 1;
  prop->pciBusID = 0x10 + device;  // a GPU of its own on the bus
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, enum cudaDeviceAttr attr, int device) {
  if (injected_failure("cudaDeviceGetAttribute")) return report(cudaErrorNotSupported);
  if (!value) return report(cudaErrorInvalidValue);
  if (!valid_device(device)) return report(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor:
      *value = 9;
      return cudaSuccess;
    case cudaDevAttrComputeCapabilityMinor:
      *value = 0;
      return cudaSuccess;
    case cudaDevAttrMultiProcessorCount:
      *value = 132;
      return cudaSuccess;
    case cudaDevAttrWarpSize:
      *value = 32;
      return cudaSuccess;
    default:
      return report(cudaErrorInvalidValue);
  }
}

cudaError_t cudaDriverGetVersion(int* driverVersion) {
  if (injected_failure("cudaDriverGetVersion")) return report(cudaErrorNotSupported);
  if (!driverVersion) return report(cudaErrorInvalidValue);
  *driverVersion = kRuntimeVersion;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* runtimeVersion) {
  if (injected_failure("cudaRuntimeGetVersion")) return report(cudaErrorNotSupported);
  if (!runtimeVersion) return report(cudaErrorInvalidValue);
  *runtimeVersion = kRuntimeVersion;
  return cudaSuccess;
}

}  // extern "C"
