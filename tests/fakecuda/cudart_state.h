#pragma once
// The CUDA runtime double's state (its memory, clocks, captures and stream order) and the rules
// its calls share: the last error and current device per host thread, FAKECUDA_* settings, what
// counts as device or pinned memory, and how work is issued to a stream (cudart_api.cc's header
// says what the double models).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "device_memory.h"
#include "stream_capture.h"
#include "stream_order.h"
#include "virtual_clock.h"

namespace ucudnn::fakecuda::cudart {

inline constexpr int kRuntimeVersion = CUDART_VERSION;

struct Runtime {
  Runtime();
  DeviceMemory memory;
  DeviceMemory pinned_host;
  VirtualClocks clocks;
  StreamCaptures captures;
  StreamOrder order;
};
Runtime& runtime();

// Per host thread, as in the real runtime.
extern thread_local cudaError_t last_error;
extern thread_local int current_device;

int device_count();
bool valid_device(int device);
// The device's entry of FAKECUDA_DEVICE_NAMES when it has one.
std::string device_name(int device);
// A function named in FAKECUDA_FAIL fails.
bool injected_failure(const char* function);

// `status`, kept as the thread's last error when it is one.
cudaError_t report(cudaError_t status);

bool valid_stream(cudaStream_t stream);
bool on_device(const void* p, std::size_t bytes);
bool pinned(const void* p, std::size_t bytes);
// Host memory is anything else; the device side of a copy must be one allocation.
cudaError_t check_copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind);
cudaError_t copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind);
cudaError_t set(void* p, int value, std::size_t count);
// Work on `stream`: recorded into the graph when the stream captures (true), else its cost
// taken now and its memory effect queued in order.
bool issue(cudaStream_t stream, StreamCaptures::Work compute, StreamCaptures::Work account = {},
           ScratchRange scratch = {});
// An asynchronous copy is asynchronous only with pinned host memory: from pageable memory the
// source is taken at the call, and into it the call waits for the stream and copies (CUDA's
// rules for pageable transfers).
void copy_in_order(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind,
                   cudaStream_t stream);

}  // namespace ucudnn::fakecuda::cudart
