#include "cudnn/cudnn_api.h"

#include <dlfcn.h>

#include "cudnn/runtime_library.h"

namespace ucudnn::cudnn {

namespace {

void* find_symbol(const char* name) {
  static void* const library =
      open_runtime_library("cudnnGetVersion", "libcudnn.so.9", "libcudnn.so.9");
  return library ? dlsym(library, name) : nullptr;
}

void note_missing(std::string& missing, const char* name) {
  if (!missing.empty()) missing.push_back(' ');
  missing.append(name);
}

CudnnApi resolve() {
  CudnnApi api;
#define UCUDNN_RESOLVE(name)                                           \
  api.name = reinterpret_cast<decltype(api.name)>(find_symbol(#name)); \
  if (!api.name) note_missing(api.missing, #name);
  UCUDNN_CUDNN_FUNCTIONS(UCUDNN_RESOLVE)
#undef UCUDNN_RESOLVE
  return api;
}

}  // namespace

const CudnnApi& cudnn_api() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static const CudnnApi& api = *new CudnnApi(resolve());
  return api;
}

}  // namespace ucudnn::cudnn
