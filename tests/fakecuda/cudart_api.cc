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
// Environment: FAKECUDA_MEMORY_BYTES  device capacity in bytes (default 4 GiB), read once.
//              FAKECUDA_DEVICE_COUNT  number of devices, 1 to 16 (default 1), read once.
//              FAKECUDA_DEVICE_NAMES  comma-separated device names (default: all the same).
//              FAKECUDA_TRACE         trace file (see README.md): malloc and free lines.
//              FAKECUDA_FAIL          comma-separated runtime functions that fail with
//                                     cudaErrorNotSupported (device queries only: what a
//                                     library must survive on an odd driver).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "device_memory.h"
#include "fakecuda_hooks.h"
#include "stream_capture.h"
#include "stream_order.h"
#include "trace.h"
#include "virtual_clock.h"

namespace ucudnn::fakecuda {
namespace {

constexpr std::size_t kDefaultCapacity = std::size_t{4} << 30;
constexpr int kRuntimeVersion = CUDART_VERSION;
constexpr const char* kDeviceName = "ucudnn fakecuda test double";

std::size_t capacity_from_environment() {
  const char* text = std::getenv("FAKECUDA_MEMORY_BYTES");
  if (!text || !*text) return kDefaultCapacity;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  return *end == '\0' ? static_cast<std::size_t>(value) : kDefaultCapacity;
}

struct Runtime {
  DeviceMemory memory{capacity_from_environment(), fakecuda_compute_enabled()};
  DeviceMemory pinned_host{std::size_t{1} << 40, fakecuda_compute_enabled()};
  VirtualClocks clocks;
  StreamCaptures captures;
  StreamOrder order;
};

// Never destroyed: other libraries' destructors may still free memory at exit.
Runtime& runtime() {
  static Runtime* instance = new Runtime;
  return *instance;
}

thread_local cudaError_t last_error = cudaSuccess;
thread_local int current_device = 0;

int device_count() {
  static const int count = [] {
    const char* text = std::getenv("FAKECUDA_DEVICE_COUNT");
    const int value = text ? std::atoi(text) : 1;
    return value >= 1 && value <= 16 ? value : 1;
  }();
  return count;
}

// A function named in FAKECUDA_FAIL fails.
bool injected_failure(const char* function) {
  static const char* list = std::getenv("FAKECUDA_FAIL");
  if (!list) return false;
  const std::size_t length = std::strlen(function);
  for (const char* at = std::strstr(list, function); at; at = std::strstr(at + 1, function))
    if ((at == list || at[-1] == ',') && (at[length] == ',' || at[length] == '\0')) return true;
  return false;
}

bool valid_device(int device) {
  return device >= 0 && device < device_count();
}

// The device's entry of FAKECUDA_DEVICE_NAMES when it has one.
std::string device_name(int device) {
  const char* names = std::getenv("FAKECUDA_DEVICE_NAMES");
  std::string list = names ? names : "";
  for (int i = 0; i < device && !list.empty(); ++i) {
    const auto comma = list.find(',');
    list = comma == std::string::npos ? "" : list.substr(comma + 1);
  }
  const std::string name = list.substr(0, list.find(','));
  return name.empty() ? kDeviceName : name;
}

cudaError_t report(cudaError_t status) {
  if (status != cudaSuccess) last_error = status;
  return status;
}

bool valid_stream(cudaStream_t stream) {
  double ignored;
  return runtime().clocks.now(stream, &ignored) == cudaSuccess;
}

bool on_device(const void* p, std::size_t bytes) {
  return runtime().memory.contains(p, bytes);
}

// Host memory is anything else; the device side of a copy must be one allocation.
cudaError_t check_copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return cudaErrorInvalidValue;
  switch (kind) {
    case cudaMemcpyHostToHost:
      return cudaSuccess;
    case cudaMemcpyHostToDevice:
      return on_device(dst, count) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToHost:
      return on_device(src, count) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDeviceToDevice:
      return on_device(dst, count) && on_device(src, count) ? cudaSuccess : cudaErrorInvalidValue;
    case cudaMemcpyDefault:
      return cudaSuccess;
  }
  return cudaErrorInvalidMemcpyDirection;
}

cudaError_t copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
  if (cudaError_t status = check_copy(dst, src, count, kind); status != cudaSuccess) return status;
  if (count) std::memmove(dst, src, count);
  return cudaSuccess;
}

cudaError_t set(void* p, int value, std::size_t count) {
  if (count == 0) return cudaSuccess;
  if (!on_device(p, count)) return cudaErrorInvalidValue;
  std::memset(p, value, count);
  return cudaSuccess;
}

bool pinned(const void* p, std::size_t bytes) {
  return runtime().pinned_host.contains(p, bytes);
}

// Work on `stream`: recorded into the graph when the stream captures (true), else its cost
// taken now and its memory effect queued in order.
bool issue(cudaStream_t stream, StreamCaptures::Work compute, StreamCaptures::Work account = {},
           ScratchRange scratch = {}) {
  if (runtime().captures.capture(stream, {compute, account})) return true;
  if (account) account();
  if (!runtime().order.enqueue(stream, std::move(compute), scratch)) {
    trace_line("race scratch=%p bytes=%zu stream=%p", reinterpret_cast<void*>(scratch.begin),
               static_cast<std::size_t>(scratch.end - scratch.begin), static_cast<void*>(stream));
    std::fprintf(stderr,
                 "fakecuda: work on stream %p uses workspace [%p, +%zu bytes) that work on another "
                 "stream, not ordered before it, still uses: a race on a GPU\n",
                 static_cast<void*>(stream), reinterpret_cast<void*>(scratch.begin),
                 static_cast<std::size_t>(scratch.end - scratch.begin));
  }
  return false;
}

// An asynchronous copy is asynchronous only with pinned host memory: from pageable memory the
// source is taken at the call, and into it the call waits for the stream and copies (CUDA's
// rules for pageable transfers).
void copy_in_order(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                   cudaStream_t stream) {
  const bool to_host = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyHostToHost ||
                       (kind == cudaMemcpyDefault && !on_device(dst, count));
  const bool from_host = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost ||
                         (kind == cudaMemcpyDefault && !on_device(src, count));
  if (to_host && !pinned(dst, count)) {
    runtime().order.finish_stream(stream);
    copy(dst, src, count, kind);
  } else if (from_host && !pinned(src, count)) {
    auto taken = std::make_shared<std::vector<char>>(static_cast<const char*>(src),
                                                     static_cast<const char*>(src) + count);
    runtime().order.enqueue(stream, [=] { std::memmove(dst, taken->data(), count); });
  } else {
    runtime().order.enqueue(stream, [=] { copy(dst, src, count, kind); });
  }
}

}  // namespace
}  // namespace ucudnn::fakecuda

using namespace ucudnn::fakecuda;

extern "C" {

cudaError_t fakecuda_advance_stream(cudaStream_t stream, double ms) {
  return runtime().clocks.advance(stream, ms);
}

cudaError_t fakecuda_stream_time(cudaStream_t stream, double* ms) {
  if (!ms) return cudaErrorInvalidValue;
  return runtime().clocks.now(stream, ms);
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
  if (!runtime().pinned_host.release(ptr)) return report(cudaErrorInvalidValue);
  trace_line("free-host");
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!fn) return report(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  issue(stream, [fn, userData] { fn(userData); });
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

cudaError_t cudaDeviceSynchronize(void) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t forbidden = runtime().captures.forbid("cudaDeviceSynchronize"))
    return report(forbidden);
  trace_line("sync kind=device");
  runtime().order.finish_all();
  return cudaSuccess;
}

cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  if (!pStream) return report(cudaErrorInvalidValue);
  *pStream = runtime().clocks.create_stream();
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  if (flags & ~static_cast<unsigned int>(cudaStreamNonBlocking))
    return report(cudaErrorInvalidValue);
  if (cudaError_t status = cudaStreamCreate(pStream); status != cudaSuccess) return status;
  if (flags & cudaStreamNonBlocking) runtime().order.set_non_blocking(*pStream);
  return cudaSuccess;
}

// The stream's queued work still completes, as CUDA's.
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread ||
      !valid_stream(stream))
    return report(cudaErrorInvalidResourceHandle);
  runtime().order.finish_stream(stream);
  runtime().order.forget_stream(stream);
  return report(runtime().clocks.destroy_stream(stream));
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.status(stream) != cudaStreamCaptureStatusNone)
    return report(runtime().captures.forbid("cudaStreamSynchronize"));
  trace_line("sync kind=stream");
  runtime().order.finish_stream(stream);
  return cudaSuccess;
}

// Work still queued: cudaErrorNotReady (not an error: the last error stays), and the work
// proceeds, so that a host polling until cudaSuccess gets there.
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.status(stream) != cudaStreamCaptureStatusNone)
    return report(runtime().captures.forbid("cudaStreamQuery"));
  if (!runtime().order.stream_pending(stream)) return cudaSuccess;
  runtime().order.finish_stream(stream);
  return cudaErrorNotReady;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  return report(runtime().captures.begin(stream, mode));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  return report(runtime().captures.end(stream, pGraph));
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                  enum cudaStreamCaptureStatus* pCaptureStatus) {
  if (!pCaptureStatus) return report(cudaErrorInvalidValue);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  // As CUDA: asking about the legacy stream while another stream captures is an error.
  if ((stream == nullptr || stream == cudaStreamLegacy) && runtime().captures.any_active())
    return report(cudaErrorStreamCaptureImplicit);
  *pCaptureStatus = runtime().captures.status(stream);
  return cudaSuccess;
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     enum cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out,
                                     const cudaGraphEdgeData** edgeData_out,
                                     size_t* numDependencies_out) {
  if (cudaError_t status = cudaStreamIsCapturing(stream, captureStatus_out); status != cudaSuccess)
    return status;
  if (id_out) *id_out = reinterpret_cast<std::uintptr_t>(stream);
  if (graph_out) *graph_out = nullptr;
  if (dependencies_out) *dependencies_out = nullptr;
  if (edgeData_out) *edgeData_out = nullptr;
  if (numDependencies_out) *numDependencies_out = 0;
  return cudaSuccess;
}

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  if (flags != 0) return report(cudaErrorInvalidValue);
  return report(runtime().captures.create_graph(pGraph));
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags) {
  if (flags != 0) return report(cudaErrorInvalidValue);
  return report(runtime().captures.instantiate(pGraphExec, graph));
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!valid_stream(stream)) return report(cudaErrorInvalidResourceHandle);
  std::vector<StreamCaptures::Node> nodes;
  if (cudaError_t status = runtime().captures.launch(graphExec, &nodes); status != cudaSuccess)
    return report(status);
  for (const auto& node : nodes)
    if (node.account) node.account();
  runtime().order.enqueue(stream, [nodes] {
    for (const auto& node : nodes) node.compute();
  });
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  return report(runtime().captures.destroy_exec(graphExec));
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return report(runtime().captures.destroy_graph(graph));
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (flags != 0 && flags != cudaEventWaitExternal) return report(cudaErrorInvalidValue);
  if (cudaError_t status = runtime().clocks.wait(stream, event); status != cudaSuccess)
    return report(status);
  runtime().order.wait(stream, event);
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (!event) return report(cudaErrorInvalidValue);
  constexpr unsigned int kKnown =
      cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~kKnown) return report(cudaErrorInvalidValue);
  *event = runtime().clocks.create_event((flags & cudaEventDisableTiming) == 0);
  return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (cudaError_t status = runtime().clocks.record(event, stream); status != cudaSuccess)
    return report(status);
  runtime().captures.note_event_recorded(event, stream);
  if (runtime().captures.status(stream) == cudaStreamCaptureStatusNone)
    runtime().order.record(event, stream);
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if (flags != 0 && flags != cudaEventRecordExternal) return report(cudaErrorInvalidValue);
  return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!runtime().clocks.is_event(event)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.captured_event(event))
    return report(runtime().captures.forbid("cudaEventSynchronize"));
  trace_line("sync kind=event");
  runtime().order.finish_event(event);
  return cudaSuccess;
}

// As cudaStreamQuery: cudaErrorNotReady while the event's work is queued, which then proceeds.
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (StreamOrder::running_work()) return report(cudaErrorNotPermitted);
  if (!runtime().clocks.is_event(event)) return report(cudaErrorInvalidResourceHandle);
  if (runtime().captures.captured_event(event))
    return report(runtime().captures.forbid("cudaEventQuery"));
  if (!runtime().order.event_pending(event)) return cudaSuccess;
  runtime().order.finish_event(event);
  return cudaErrorNotReady;
}

// Both events must have completed, as CUDA's (cudaErrorNotReady otherwise).
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return report(cudaErrorInvalidValue);
  if (runtime().captures.captured_event(start) || runtime().captures.captured_event(end))
    return report(runtime().captures.forbid("cudaEventElapsedTime"));
  float value = 0;
  if (cudaError_t status = runtime().clocks.elapsed(&value, start, end); status != cudaSuccess)
    return report(status);
  if (runtime().order.event_pending(start) || runtime().order.event_pending(end))
    return cudaErrorNotReady;
  *ms = value;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (cudaError_t status = runtime().clocks.destroy_event(event); status != cudaSuccess)
    return report(status);
  runtime().order.forget_event(event);
  return cudaSuccess;
}

}  // extern "C"
