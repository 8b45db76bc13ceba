#include "cudnn/cuda_runtime.h"

#include <dlfcn.h>

#include "cudnn/library_symbols.h"
#include "cudnn/runtime_library.h"

namespace ucudnn::cudnn {

namespace {

CudaRuntime resolve() {
  void* library = open_runtime_library("cudaMalloc", "libcudart.so.13", "libcudart.so.13");
  return CudaRuntime::resolve(
      [library](const char* name) { return library ? library_symbol(library, name) : nullptr; });
}

}  // namespace

const CudaRuntime& cuda_runtime() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static const CudaRuntime& runtime = *new CudaRuntime(resolve());
  return runtime;
}

}  // namespace ucudnn::cudnn
