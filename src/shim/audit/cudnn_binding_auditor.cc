// libucudnn_audit.so, an LD_AUDIT auditor (rtld-audit(7)) that scripts/ucudnn-run loads beside
// the LD_PRELOAD shim. A preload wins only the lookups that search the global scope; programs
// that dlopen cuDNN themselves and dlsym on its handle (TensorFlow, XLA, JAX), open it under
// another name (libcudnn.so) or by path, or load it from a plugin opened RTLD_DEEPBIND, bind to
// cuDNN directly. glibc tells an auditor of every binding to an object it marked LA_FLG_BINDTO
// (la_symbind64, for PLT bindings and dlsym results alike) and lets it answer another address:
// this one marks every cuDNN library (libcudnn.so* by file name or soname) and answers the
// shim's definition for the functions the shim interposes (interposed_functions.h).
//
// The shim itself resolves the real functions from cuDNN's own symbol table
// (cudnn/library_symbols.h), never through dlsym, so what this redirects never reaches it.
// The auditor runs in its own link namespace: it finds the shim's functions through
// dlmopen(LM_ID_BASE, ..., RTLD_NOLOAD), where the preload put it.
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "shim/interposed_functions.h"

namespace {

#define UCUDNN_NAME(name) #name,
constexpr const char* kInterposed[] = {UCUDNN_INTERPOSED_FUNCTIONS(UCUDNN_NAME)};
#undef UCUDNN_NAME
constexpr std::size_t kCount = sizeof kInterposed / sizeof kInterposed[0];

// The shim as la_objopen saw it, and its functions once looked up.
std::atomic<const char*> shim_path{nullptr};
std::atomic<void*> shim_functions[kCount];

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// The object's DT_SONAME, or "".
const char* soname_of(const link_map* map) {
  const char* strings = nullptr;
  ElfW(Xword) offset = 0;
  bool has_soname = false;
  for (const ElfW(Dyn)* d = map->l_ld; d && d->d_tag != DT_NULL; ++d) {
    if (d->d_tag == DT_STRTAB) {
      const ElfW(Addr) value = d->d_un.d_ptr;
      strings = reinterpret_cast<const char*>(value < map->l_addr ? value + map->l_addr : value);
    } else if (d->d_tag == DT_SONAME) {
      offset = d->d_un.d_val;
      has_soname = true;
    }
  }
  return strings && has_soname ? strings + offset : "";
}

// cuDNN's front library: libcudnn.so, libcudnn.so.9, libcudnn.so.9.x by any path; not its
// sub-libraries (libcudnn_ops.so.9, ...), whose bindings are cuDNN's own business.
bool is_cudnn(const char* name) {
  return std::strncmp(name, "libcudnn.so", 11) == 0;
}

bool is_ucudnn(const char* name) {
  return std::strncmp(name, "libucudnn", 9) == 0;
}

void* shim_function(std::size_t i) {
  if (void* known = shim_functions[i].load(std::memory_order_acquire)) return known;
  const char* path = shim_path.load(std::memory_order_acquire);
  if (!path) return nullptr;
  void* shim = dlmopen(LM_ID_BASE, path, RTLD_LAZY | RTLD_NOLOAD);
  void* function = shim ? dlsym(shim, kInterposed[i]) : nullptr;
  if (function) shim_functions[i].store(function, std::memory_order_release);
  return function;
}

}  // namespace

extern "C" {

unsigned int la_version(unsigned int version) {
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(link_map* map, Lmid_t lmid, uintptr_t*) {
  if (lmid != LM_ID_BASE) return 0;
  const char* file = base_name(map->l_name);
  if (is_ucudnn(file)) {
    // The shim binds to cuDNN on its own terms; the first one loaded is the preload.
    if (std::strncmp(file, "libucudnn_preload", 17) == 0) {
      const char* expected = nullptr;
      shim_path.compare_exchange_strong(expected, map->l_name);
    }
    return 0;
  }
  if (is_cudnn(file) || is_cudnn(soname_of(map))) return LA_FLG_BINDTO;
  return LA_FLG_BINDFROM;
}

uintptr_t la_symbind64(Elf64_Sym* symbol, unsigned int, uintptr_t*, uintptr_t*, unsigned int*,
                       const char* name) {
  if (std::strncmp(name, "cudnn", 5) != 0) return symbol->st_value;
  for (std::size_t i = 0; i < kCount; ++i)
    if (std::strcmp(name, kInterposed[i]) == 0) {
      void* function = shim_function(i);
      return function ? reinterpret_cast<uintptr_t>(function) : symbol->st_value;
    }
  return symbol->st_value;
}

}  // extern "C"
