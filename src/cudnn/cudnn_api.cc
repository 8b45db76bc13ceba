#include "cudnn/cudnn_api.h"

#include "cudnn/runtime_library.h"

namespace ucudnn::cudnn {

namespace {

RuntimeLibrary& cudnn_library() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static RuntimeLibrary& library = *new RuntimeLibrary("libcudnn.so.9", "libcudnn.so.9");
  return library;
}

}  // namespace

void* cudnn_symbol(const char* name) {
  return cudnn_library().function(name);
}

void* cudnn_own_symbol(const char* name) {
  return cudnn_library().own_function(name);
}

const CudnnApi& cudnn_api() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static const CudnnApi& api = *new CudnnApi(CudnnApi::resolve(cudnn_symbol));
  return api;
}

}  // namespace ucudnn::cudnn
