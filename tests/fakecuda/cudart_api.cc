// libcudart.so.13 test double: the CUDA runtime calls a cuDNN application and ucudnn make,
// with "device" and pinned host memory in host memory (DeviceMemory) and streams and events
// on virtual clocks (VirtualClocks). Work issued to a stream (kernels of the cuDNN double,
// asynchronous copies and memsets, host functions) runs in stream order when the host
// synchronizes with it (StreamOrder), so results read too early are stale, as on a GPU.
// Copies and memsets take no virtual time; only the cuDNN double advances clocks. Device 0, or
// FAKECUDA_DEVICE_COUNT devices that share the memory and the clocks and differ only in name (for
// multi-GPU tools). The last error and the current device are per host thread, as in the real
// runtime. Stream capture is CUDA's global mode (StreamCaptures): captured work waits for a graph
// launch, and a call CUDA forbids during capture fails and invalidates it. Every synchronizing call
// is traced
// ("sync kind=..."), so that tests can count what a library added.
//
// Environment: FAKECUDA_MEMORY_BYTES  device capacity in bytes (default 4 GiB), read once;
//              FAKECUDA_MEMORY_HELD_BYTES  what other processes hold of it (default 0).
//              FAKECUDA_DEVICE_COUNT  number of devices, 1 to 16 (default 1), read once.
//              FAKECUDA_DEVICE_NAMES  comma-separated device names (default: all the same).
//              FAKECUDA_TRACE         trace file (see README.md): malloc and free lines.
//              FAKECUDA_FAIL          comma-separated runtime functions that fail with
//                                     cudaErrorNotSupported (device queries only: what a
//                                     library must survive on an odd driver).
//
// This file: memory, copies and memsets, and the hooks the cuDNN double issues its work with;
// cudart_device.cc: errors and device queries; cudart_streams.cc: streams, capture, graphs and
// events; cudart_state.h: what they share.
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

cudaError_t fakecuda_advance_stream(cudaStream_t stream, double ms) {
  return runtime().clocks.advance(stream, ms);
}

cudaError_t fakecuda_stream_time(cudaStream_t stream, double* ms) {
  if (!ms) return cudaErrorInvalidValue;
  return runtime().clocks.now(stream, ms);
}

void fakecuda_host_busy(double ms) {
  runtime().clocks.host_busy(ms);
}

int fakecuda_find_allocation(const void* p, size_t bytes) {
  return on_device(p, bytes) ? 1 : 0;
}

int fakecuda_issue(cudaStream_t stream, void (*compute)(void*), void (*account)(void*),
                   void* context, void (*release)(void*), const void* scratch,
                   size_t scratch_bytes) {
  auto owned = std::shared_ptr<void>(context, release);
  StreamCaptures::Work run = [compute, owned] { compute(owned.get()); };
  StreamCaptures::Work cost;
  if (account) cost = [account, owned] { account(owned.get()); };
  const auto begin = reinterpret_cast<std::uintptr_t>(scratch);
  return issue(stream, std::move(run), std::move(cost),
               {begin, scratch ? begin + scratch_bytes : begin})
             ? 1
             : 0;
}

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  if (!devPtr) return report(cudaErrorInvalidValue);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaMalloc")) return report(forbidden);
  if (size == 0) {  // as the real runtime: success, and no allocation
    *devPtr = nullptr;
    return cudaSuccess;
  }
  void* p = runtime().memory.allocate(size);
  trace_line("malloc bytes=%zu ok=%d device=%d", size, p ? 1 : 0, current_device);
  if (!p) return report(cudaErrorMemoryAllocation);
  *devPtr = p;
  return cudaSuccess;
}

cudaError_t cudaFree(void* devPtr) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaFree")) return report(forbidden);
  if (!devPtr) return cudaSuccess;
  runtime().order.finish_all();  // cudaFree synchronizes the device
  runtime().clocks.host_waits_for_all();
  const auto bytes = runtime().memory.release(devPtr);
  if (!bytes) return report(cudaErrorInvalidValue);
  trace_line("free bytes=%zu", *bytes);
  return cudaSuccess;
}

// On the legacy stream; between device buffers asynchronous to the host, else the host waits
// for the legacy stream (and so for every blocking stream's earlier work) and copies.
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaMemcpy")) return report(forbidden);
  if (cudaError_t status = check_copy(dst, src, count, kind); status != cudaSuccess)
    return report(status);
  if (kind == cudaMemcpyDeviceToDevice) {
    runtime().order.enqueue(nullptr, [=] { copy(dst, src, count, kind); });
    return cudaSuccess;
  }
  runtime().order.finish_stream(nullptr);
  runtime().clocks.host_waits_for_all();  // the legacy stream waits for the blocking ones
  trace_line("sync kind=memcpy");
  return report(copy(dst, src, count, kind));
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  if (cudaError_t status = check_copy(dst, src, count, kind); status != cudaSuccess)
    return report(status);
  if (count == 0) return cudaSuccess;
  if (runtime().captures.capture(stream, {[=] { copy(dst, src, count, kind); }, {}}))
    return cudaSuccess;
  copy_in_order(dst, src, count, kind, stream);
  return cudaSuccess;
}

// Asynchronous to the host for device memory, on the legacy stream.
cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaMemset")) return report(forbidden);
  if (count && !on_device(devPtr, count)) return report(cudaErrorInvalidValue);
  runtime().order.enqueue(nullptr, [=] { set(devPtr, value, count); });
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  if (count && !on_device(devPtr, count)) return report(cudaErrorInvalidValue);
  issue(stream, [=] { set(devPtr, value, count); });
  return cudaSuccess;
}

// Page-locked host memory: what makes an asynchronous copy asynchronous.
cudaError_t cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!pHost) return report(cudaErrorInvalidValue);
  constexpr unsigned int kKnown =
      cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
  if (flags & ~kKnown) return report(cudaErrorInvalidValue);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaHostAlloc")) return report(forbidden);
  if (size == 0) {
    *pHost = nullptr;
    return cudaSuccess;
  }
  void* p = runtime().pinned_host.allocate(size);
  trace_line("malloc-host bytes=%zu ok=%d", size, p ? 1 : 0);
  if (!p) return report(cudaErrorMemoryAllocation);
  *pHost = p;
  return cudaSuccess;
}

cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

cudaError_t cudaFreeHost(void* ptr) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaFreeHost")) return report(forbidden);
  if (!ptr) return cudaSuccess;
  runtime().order.finish_all();  // as cudaFree, it synchronizes the device
  runtime().clocks.host_waits_for_all();
  if (!runtime().pinned_host.release(ptr)) return report(cudaErrorInvalidValue);
  trace_line("free-host");
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!fn) return report(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.status(stream) != cudaStreamCaptureStatusNone) {
    issue(stream, [fn, userData] { fn(userData); });
    return cudaSuccess;
  }
  // Held before it is queued: a full launch queue runs the oldest work at once.
  runtime().clocks.hold(stream);
  issue(stream, [fn, userData, stream] {
    fn(userData);
    runtime().clocks.release(stream);
  });
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  if (injected_failure("cudaMemGetInfo")) return report(cudaErrorNotSupported);
  if (!free || !total) return report(cudaErrorInvalidValue);
  const DeviceMemory& memory = runtime().memory;
  *total = memory.capacity();
  *free = memory.capacity() - memory.used();
  return cudaSuccess;
}

}  // extern "C"
