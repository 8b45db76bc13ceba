#include "cudnn/cudnn_api.h"

#include <dlfcn.h>

#include "cudnn/library_symbols.h"
#include "cudnn/runtime_library.h"

namespace ucudnn::cudnn {

void* cudnn_symbol(const char* name) {
  static void* const library =
      open_runtime_library("cudnnGetVersion", "libcudnn.so.9", "libcudnn.so.9");
  return library ? library_symbol(library, name) : nullptr;
}

const CudnnApi& cudnn_api() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static const CudnnApi& api = *new CudnnApi(CudnnApi::resolve(cudnn_symbol));
  return api;
}

}  // namespace ucudnn::cudnn
