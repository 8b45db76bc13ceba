#include "cudnn/runtime_library.h"

#include <dlfcn.h>

#include <cstdio>

namespace ucudnn::cudnn {

namespace {

// ucudnn's interposers export this name (src/shim/preload.map): a library that has it is
// ucudnn, under whatever file name (a copy installed as libcudnn.so.9, a soname that says
// cuDNN), and resolving "the real" functions there would call ucudnn forever.
constexpr const char* kInterposerMarker = "ucudnn_interposer_marker";

bool is_interposer(void* handle) {
  return handle && dlsym(handle, kInterposerMarker) != nullptr;
}

void* checked(void* handle, const char* soname) {
  if (!is_interposer(handle)) return handle;
  std::fprintf(stderr,
               "ucudnn: error: the library found as %s is ucudnn itself, not the real one; "
               "it is not used (is a copy of ucudnn installed under that name?)\n",
               soname);
  return nullptr;
}

}  // namespace

void* open_runtime_library(const char* anchor, const char* version, const char* soname) {
  void* symbol = dlvsym(RTLD_NEXT, anchor, version);
  if (!symbol) symbol = dlsym(RTLD_NEXT, anchor);
  if (symbol) {
    Dl_info info;
    if (dladdr(symbol, &info) && info.dli_fname)
      if (void* handle = checked(dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD), soname))
        return handle;
  }
  if (void* handle = checked(dlopen(soname, RTLD_NOW | RTLD_NOLOAD), soname)) return handle;
  return checked(dlopen(soname, RTLD_NOW | RTLD_LOCAL), soname);
}

}  // namespace ucudnn::cudnn
