#include "cudnn/cudnn_api.h"

#include <dlfcn.h>

namespace ucudnn::cudnn {

namespace {

constexpr const char* kLibrary = "libcudnn.so.9";

void* find_symbol(const char* name) {
  if (void* symbol = dlvsym(RTLD_NEXT, name, kLibrary)) return symbol;
  if (void* symbol = dlsym(RTLD_NEXT, name)) return symbol;
  static void* const library = [] {
    void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_NOLOAD);
    return handle ? handle : dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  }();
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
  static const CudnnApi api = resolve();
  return api;
}

}  // namespace ucudnn::cudnn
