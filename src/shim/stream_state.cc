#include "shim/stream_state.h"

#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::shim {

std::optional<cudaStream_t> stream_of(cudnnHandle_t handle) {
  cudaStream_t stream = nullptr;
  if (cudnn::cudnn_api().cudnnGetStream(handle, &stream) != CUDNN_STATUS_SUCCESS)
    return std::nullopt;
  return stream;
}

bool capturing(std::optional<cudaStream_t> stream) {
  if (!stream) return true;
  const auto& runtime = cudnn::cuda_runtime();
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (runtime.cudaStreamIsCapturing(*stream, &status) != cudaSuccess) {
    runtime.cudaGetLastError();  // ours, not the application's
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace ucudnn::shim
