#include "cudnn/runtime_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>
#include <mutex>

#include "cudnn/elf_symbols.h"
#include "cudnn/library_symbols.h"

namespace ucudnn::cudnn {

namespace {

// ucudnn's interposers export this name (src/shim/preload.map): a library that has it is
// ucudnn, under whatever file name (a copy installed as libcudnn.so.9, a soname that says
// cuDNN), and resolving "the real" functions there would call ucudnn forever.
constexpr const char* kInterposerMarker = "ucudnn_interposer_marker";

bool is_interposer(const link_map* map) {
  return map && elf::address_of(elf::tables_of(map), kInterposerMarker) != nullptr;
}

bool is_interposer_handle(void* handle) {
  link_map* map = nullptr;
  return handle && dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && is_interposer(map);
}

// The object `address` lies in; nullptr when none.
const link_map* owner_of(void* address) {
  Dl_info info;
  link_map* map = nullptr;
  if (!dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP)) return nullptr;
  return map;
}

void* checked(void* handle, const char* soname) {
  if (!is_interposer_handle(handle)) return handle;
  std::fprintf(stderr,
               "ucudnn: error: the library found as %s is ucudnn itself, not the real one; "
               "it is not used (is a copy of ucudnn installed under that name?)\n",
               soname);
  return nullptr;
}

}  // namespace

RuntimeLibrary::RuntimeLibrary(const char* soname, const char* version)
    : soname_(soname), version_(version) {}

void* RuntimeLibrary::library() {
  std::call_once(looked_up_, [this] {
    void* loaded = dlopen(soname_, RTLD_NOW | RTLD_NOLOAD);
    library_ = checked(loaded ? loaded : dlopen(soname_, RTLD_NOW | RTLD_LOCAL), soname_);
  });
  return library_;
}

void* RuntimeLibrary::function(const char* name) {
  // As the application's own binding takes it: the default version, or an unversioned
  // definition (a wrapper's); a definition only under an older version name comes last.
  void* next = dlsym(RTLD_NEXT, name);
  if (!next) next = dlvsym(RTLD_NEXT, name, version_);
  if (next && !is_interposer(owner_of(next))) return next;
  return own_function(name);
}

void* RuntimeLibrary::own_function(const char* name) {
  return library_symbol(library(), name);
}

}  // namespace ucudnn::cudnn
