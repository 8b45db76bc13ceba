#pragma once
// What the entries of legacy_api_table.h need beyond the dispatch (dispatch.h): Get/Find results
// converted to the operation's own struct, and the caller's buffers as one struct.
#include <cudnn.h>

#include <algorithm>
#include <cstdint>

#include "cudnn/convolution_arguments.h"
#include "shim/dispatch.h"

namespace ucudnn::shim::legacy {

inline constexpr int kMaxResults = 64;

// Runs the dispatch's Get/Find on generic results and converts them to `Perf`. Hidden: its
// instantiations are not cuDNN functions, whatever the exports' name patterns match.
template <typename Perf>
__attribute__((visibility("hidden"))) cudnnStatus_t find(
    Operation operation, cudnn::Selection selection, cudnnHandle_t handle,
    const cudnn::ConvolutionDescriptors& d, int requested, int* returned, Perf* results,
    const cudnn::ConvolutionBuffers& buffers, void* workspace, std::size_t bytes,
    std::int64_t layer) {
  const int capacity = std::clamp(requested, 0, kMaxResults);
  cudnn::AlgorithmPerf generic[kMaxResults];
  int count = 0;
  const cudnnStatus_t status = find_algorithms(
      operation, selection, handle, d, requested > 0 ? capacity : requested,
      returned ? &count : nullptr, results ? generic : nullptr, buffers, workspace, bytes, layer);
  if (status == CUDNN_STATUS_SUCCESS && returned && results) {
    count = std::min(count, capacity);
    for (int i = 0; i < count; ++i) results[i] = cudnn::to_cudnn_perf<Perf>(generic[i]);
    *returned = count;
  }
  return status;
}

// cuDNN passes the buffers a call only reads as const; the shim passes them on as they came.
inline cudnn::ConvolutionBuffers buffers(const void* x, const void* w, const void* y) {
  return {const_cast<void*>(x), const_cast<void*>(w), const_cast<void*>(y)};
}

}  // namespace ucudnn::shim::legacy
