#pragma once
// The one rule by which ucudnn reaches the functions of a library it does not link (cuDNN, the
// CUDA runtime), for every front end alike (the preload, the auditor's path, UcudnnHandle_t):
// each function is taken from the first object after ucudnn, in the process's lookup order,
// that defines it (dlsym(RTLD_NEXT, name), then dlvsym(RTLD_NEXT, name, version)): another
// preloaded tool below ucudnn (an API logger, a tracer, another shim) that wraps some
// functions gets those, and the rest still come from the library itself. Where nothing after
// ucudnn defines it (the library came in RTLD_LOCAL through a plugin, the Python case), it is
// read from the library loaded under its soname, else loaded, from that object's own symbol
// table (library_symbols.h). Never from ucudnn itself, under whatever name: an answer inside
// an object that carries ucudnn's marker (a copy of ucudnn, or a binding an auditor redirected
// to the shim) is not taken. An answer inside a tool that calls ucudnn back cannot be told
// apart here: the shim sends such calls to the library's own definition (shim/reentry.h).
#include <mutex>

namespace ucudnn::cudnn {

// Thread-safe.
class RuntimeLibrary {
 public:
  // `version`: the symbol version the library defines its functions under (dlvsym's exact
  // match skips an unversioned wrapper's definition, so it is asked second).
  RuntimeLibrary(const char* soname, const char* version);
  RuntimeLibrary(const RuntimeLibrary&) = delete;
  RuntimeLibrary& operator=(const RuntimeLibrary&) = delete;

  // nullptr when no object but ucudnn defines `name`.
  void* function(const char* name);
  // The library's own definition, past every tool: for a call the rule's answer handed back to
  // ucudnn (shim/reentry.h). nullptr when the library does not define `name`.
  void* own_function(const char* name);

 private:
  void* library();  // the soname's object, found or loaded once; nullptr when none is usable

  const char* soname_;
  const char* version_;
  std::once_flag looked_up_;
  void* library_ = nullptr;  // stays open for the process
};

}  // namespace ucudnn::cudnn
