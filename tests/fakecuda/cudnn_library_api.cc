// libcudnn.so.9 test double: handles, versions and error strings. The descriptors are in
// descriptor_api.cc, the legacy convolution API in convolution_api.cc. Built against the
// real cuDNN headers so that every signature and struct layout is cuDNN's; the real
// library is never loaded.
//
// Environment:
//   FAKECUDA_COMPUTE=0   convolutions validate and advance the clock but skip the arithmetic
//   FAKECUDA_TRACE=FILE  append one line per event to FILE (one write() per line, O_APPEND,
//                        so processes and threads may share the file):
//     fakecuda loaded pid=<pid>                 once per process (cuDNN double)
//     malloc bytes=<n> ok=<0|1> device=<d>      each cudaMalloc of n > 0 bytes (runtime double)
//     free                                      each successful cudaFree of an allocation
//     conv op=<Forward|BackwardData|BackwardFilter> algo=<NAME> n=<batch> workspace=<given>
//          needed=<modeled> time_ms=<%.9g> alpha=<%g> beta=<%g>
//                                               each convolution that ran (validated); NAME is
//                                               cost_model.h's (cuDNN's enum name without
//                                               the prefix, e.g. IMPLICIT_GEMM, ALGO_1)
//     select kind=<v7|find|findex> op=<...> n=<batch>
//                                               each successful Get*_v7 / Find* / Find*Ex
#include <cudnn.h>

#include <new>

#include "cudnn_session.h"
#include "descriptors.h"
#include "trace.h"

using namespace ucudnn::fakecuda;

extern "C" {

size_t cudnnGetVersion(void) {
  announce_load();
  return CUDNN_VERSION;
}

size_t cudnnGetCudartVersion(void) {
  return CUDART_VERSION;
}

cudnnStatus_t cudnnGetProperty(libraryPropertyType type, int* value) {
  if (!value) return CUDNN_STATUS_BAD_PARAM;
  switch (type) {
    case MAJOR_VERSION:
      *value = CUDNN_MAJOR;
      return CUDNN_STATUS_SUCCESS;
    case MINOR_VERSION:
      *value = CUDNN_MINOR;
      return CUDNN_STATUS_SUCCESS;
    case PATCH_LEVEL:
      *value = CUDNN_PATCHLEVEL;
      return CUDNN_STATUS_SUCCESS;
  }
  return CUDNN_STATUS_BAD_PARAM;
}

const char* cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
#define UCUDNN_FAKECUDA_STATUS(name) \
  case name:                         \
    return #name;
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_SUCCESS)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_NOT_INITIALIZED)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_DEPRECATED)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_BAD_PARAM)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_BAD_PARAM_NULL_POINTER)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_NOT_SUPPORTED)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_NOT_SUPPORTED_SHAPE)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_NOT_SUPPORTED_LAYOUT)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_INTERNAL_ERROR)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_EXECUTION_FAILED)
    UCUDNN_FAKECUDA_STATUS(CUDNN_STATUS_EXECUTION_FAILED_CUDART)
#undef UCUDNN_FAKECUDA_STATUS
    default:
      return "CUDNN_UNKNOWN_STATUS";
  }
}

void cudnnGetLastErrorString(char* message, size_t max_size) {
  if (!message || max_size == 0) return;
  const std::string& text = last_error_message();
  const size_t length = text.size() < max_size - 1 ? text.size() : max_size - 1;
  text.copy(message, length);
  message[length] = '\0';
}

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
  announce_load();
  if (!handle) return CUDNN_STATUS_BAD_PARAM;
  *handle = new (std::nothrow) cudnnContext{};
  return *handle ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  if (!alive(handle)) return CUDNN_STATUS_BAD_PARAM;
  handle->tag = Tag::kDead;
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId) {
  if (!alive(handle)) return CUDNN_STATUS_BAD_PARAM;
  handle->stream = streamId;
  return CUDNN_STATUS_SUCCESS;
}

// Traced ("stream-query"), so that tests see a library's per-call bookkeeping.
cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t* streamId) {
  trace_line("stream-query");
  if (!alive(handle) || !streamId) return CUDNN_STATUS_BAD_PARAM;
  *streamId = handle->stream;
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
