#include "cudnn/runtime_library.h"

#include <dlfcn.h>

namespace ucudnn::cudnn {

void* open_runtime_library(const char* anchor, const char* version, const char* soname) {
  void* symbol = dlvsym(RTLD_NEXT, anchor, version);
  if (!symbol) symbol = dlsym(RTLD_NEXT, anchor);
  if (symbol) {
    Dl_info info;
    if (dladdr(symbol, &info) && info.dli_fname)
      if (void* handle = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) return handle;
  }
  void* handle = dlopen(soname, RTLD_NOW | RTLD_NOLOAD);
  return handle ? handle : dlopen(soname, RTLD_NOW | RTLD_LOCAL);
}

}  // namespace ucudnn::cudnn
