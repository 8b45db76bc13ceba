#include "cudnn/cudnn_api.h"

#include <dlfcn.h>

namespace ucudnn::cudnn {

namespace {

constexpr const char* kLibrary = "libcudnn.so.9";

// The library every function is taken from: found through one anchor symbol in DESIGN's
// order, then reopened by its file name, so that with two cuDNN copies in the process (a
// system one and a pip one loaded RTLD_LOCAL) the table never mixes them.
void* cudnn_library() {
  void* anchor = dlvsym(RTLD_NEXT, "cudnnGetVersion", kLibrary);
  if (!anchor) anchor = dlsym(RTLD_NEXT, "cudnnGetVersion");
  if (anchor) {
    Dl_info info;
    if (dladdr(anchor, &info) && info.dli_fname)
      if (void* handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) return handle;
  }
  void* handle = dlopen(kLibrary, RTLD_NOW | RTLD_NOLOAD);
  return handle ? handle : dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
}

void* find_symbol(const char* name) {
  static void* const library = cudnn_library();
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
