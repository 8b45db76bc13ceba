#pragma once
// CHECK_CUDNN / CHECK_CUDA for the example programs: a failed call ends the process at once
// (other threads may still be running, so no destructors), naming the file and line, the call,
// its status and the library's message.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ucudnn::examples {

[[noreturn]] inline void die(const char* file, int line, const char* call, long status,
                             const char* message) {
  const char* slash = std::strrchr(file, '/');
  std::fflush(stdout);
  std::fprintf(stderr, "%s:%d: %s failed: status %ld (%s)\n", slash ? slash + 1 : file, line, call,
               status, message);
  std::_Exit(1);
}

inline void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status != CUDNN_STATUS_SUCCESS) die(file, line, call, status, cudnnGetErrorString(status));
}

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) die(file, line, call, status, cudaGetErrorString(status));
}

}  // namespace ucudnn::examples

#define CHECK_CUDNN(call) ::ucudnn::examples::check_cudnn((call), #call, __FILE__, __LINE__)
#define CHECK_CUDA(call) ::ucudnn::examples::check_cuda((call), #call, __FILE__, __LINE__)
