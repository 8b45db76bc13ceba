#include "cudnn/cuda_runtime.h"

#include <dlfcn.h>

#include "cudnn/runtime_library.h"

namespace ucudnn::cudnn {

namespace {

CudaRuntime resolve() {
  void* library = open_runtime_library("cudaMalloc", "libcudart.so.13", "libcudart.so.13");
  CudaRuntime runtime;
#define UCUDNN_RESOLVE(name)                                                               \
  runtime.name =                                                                           \
      reinterpret_cast<decltype(runtime.name)>(library ? dlsym(library, #name) : nullptr); \
  if (!runtime.name) {                                                                     \
    if (!runtime.missing.empty()) runtime.missing += ' ';                                  \
    runtime.missing += #name;                                                              \
  }
  UCUDNN_CUDA_FUNCTIONS(UCUDNN_RESOLVE)
#undef UCUDNN_RESOLVE
  return runtime;
}

}  // namespace

const CudaRuntime& cuda_runtime() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static const CudaRuntime& runtime = *new CudaRuntime(resolve());
  return runtime;
}

}  // namespace ucudnn::cudnn
