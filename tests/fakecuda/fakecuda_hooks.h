#pragma once
// What the libcudnn.so.9 double (and tests) need from the libcudart.so.13 double's state:
// the virtual clock of each stream, the table of live "device" allocations, and issuing
// work in stream order. Exported
// by libcudart.so.13 with a fakecuda_ prefix; the real runtime has none of these, so code
// calling them must only run on the doubles.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

extern "C" {

// Adds ms to the stream's virtual clock. The null stream, cudaStreamLegacy and
// cudaStreamPerThread share one default clock. cudaErrorInvalidResourceHandle for a
// stream that was never created or is already destroyed.
cudaError_t fakecuda_advance_stream(cudaStream_t stream, double ms);

// The stream's virtual clock in ms (0 when created).
cudaError_t fakecuda_stream_time(cudaStream_t stream, double* ms);

// The calling thread spent `ms` of host work in a library call: from the first such call on,
// the GPU waits for the host (virtual_clock.h says how).
void fakecuda_host_busy(double ms);

// 1 when [p, p + bytes) lies inside one live cudaMalloc allocation, else 0.
int fakecuda_find_allocation(const void* p, size_t bytes);

// Issues a kernel's work to `stream`, as a GPU library's launch: when the stream captures,
// records it for the graph's launch and returns 1; otherwise runs account(context) now (the
// work's modeled time and trace line) and queues compute(context) in stream order (it runs
// when the host synchronizes with it), returning 0. Either way the runtime owns context and
// calls release(context) when done with it. account may be null. [scratch, scratch +
// scratch_bytes) is device memory the work uses as scratch (a workspace): issued while work on
// another stream that is not ordered before it uses overlapping scratch, the two would race
// on a GPU: a "race" trace line and a message report it.
int fakecuda_issue(cudaStream_t stream, void (*compute)(void*), void (*account)(void*),
                   void* context, void (*release)(void*), const void* scratch,
                   size_t scratch_bytes);

}  // extern "C"

// FAKECUDA_COMPUTE=0: the doubles validate calls and advance clocks, but compute nothing.
inline bool fakecuda_compute_enabled() {
  const char* value = std::getenv("FAKECUDA_COMPUTE");
  return !(value && std::strcmp(value, "0") == 0);
}
