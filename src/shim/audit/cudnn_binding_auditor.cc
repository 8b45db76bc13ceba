// libucudnn_audit.so, an LD_AUDIT auditor (rtld-audit(7)) that scripts/ucudnn-run loads beside
// the LD_PRELOAD shim. A preload wins only the lookups that search the global scope; programs
// that dlopen cuDNN themselves and dlsym on its handle (TensorFlow, XLA, JAX), open it under
// another name (libcudnn.so) or by path, or load it from a plugin opened RTLD_DEEPBIND, bind to
// cuDNN directly. glibc tells an auditor of every binding to an object it marked LA_FLG_BINDTO
// (la_symbind64, for PLT bindings and dlsym results alike) and lets it answer another address:
// this one marks cuDNN 9's front library (libcudnn.so.9 or libcudnn.so, by file name or soname;
// the first one loaded: a second copy's handles would mean nothing to the first) and answers
// the shim's definition for the functions the shim interposes (interposed_functions.h).
//
// Nothing here calls into the dynamic linker: it runs inside its callbacks, under its locks.
// The shim is the object that exports ucudnn_interposer_marker and cudnnCreate, whatever its
// file name; its functions are read from its own symbol table (cudnn/elf_symbols.h). Lookups
// requested by ucudnn, by cuDNN's own sub-libraries and by another tool's wrapper of cuDNN (an
// object defining functions the shim interposes) are never redirected: the shim's resolution of
// the real functions (cudnn/runtime_library.h) and a wrapper below it must reach cuDNN.
#include <link.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "cudnn/elf_symbols.h"
#include "shim/interposed_functions.h"

namespace {

#define UCUDNN_NAME(name) #name,
constexpr const char* kInterposed[] = {UCUDNN_INTERPOSED_FUNCTIONS(UCUDNN_NAME)};
#undef UCUDNN_NAME
constexpr std::size_t kCount = sizeof kInterposed / sizeof kInterposed[0];

// Written once, in la_objopen (the dynamic linker serializes it), before `shim_found`.
ucudnn::elf::DynamicTables shim;
std::atomic<bool> shim_found{false};
std::atomic<const link_map*> cudnn{nullptr};
std::atomic<void*> shim_functions[kCount];

const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

// cuDNN 9's front library, not its sub-libraries (libcudnn_ops.so.9, ...) nor another version.
bool is_cudnn_front(const char* name) {
  return name &&
         (std::strcmp(name, "libcudnn.so") == 0 || std::strncmp(name, "libcudnn.so.9", 13) == 0);
}

bool is_cudnn_sublibrary(const char* name) {
  return std::strncmp(name, "libcudnn_", 9) == 0;
}

void* shim_function(std::size_t i) {
  if (void* known = shim_functions[i].load(std::memory_order_acquire)) return known;
  if (!shim_found.load(std::memory_order_acquire)) return nullptr;
  void* function = ucudnn::elf::address_of(shim, kInterposed[i]);
  if (function) shim_functions[i].store(function, std::memory_order_release);
  return function;
}

// The cookie of an object whose lookups are never redirected. glibc starts each cookie at the
// object's link_map address, which this (an address inside the auditor) can never be.
const char never_redirected_tag = 0;
const uintptr_t kNeverRedirected = reinterpret_cast<uintptr_t>(&never_redirected_tag);

unsigned int never_redirected(uintptr_t* cookie) {
  *cookie = kNeverRedirected;
  return 0;
}

bool defines_an_interposed_function(const ucudnn::elf::DynamicTables& tables) {
  for (const char* name : kInterposed)
    if (ucudnn::elf::address_of(tables, name)) return true;
  return false;
}

}  // namespace

extern "C" {

unsigned int la_version(unsigned int version) {
  return version < LAV_CURRENT ? version : LAV_CURRENT;
}

unsigned int la_objopen(link_map* map, Lmid_t lmid, uintptr_t* cookie) {
  if (lmid != LM_ID_BASE) return 0;
  const auto tables = ucudnn::elf::tables_of(map);
  // ucudnn itself (the shim, or a copy of it under another name): never audited.
  if (ucudnn::elf::address_of(tables, "ucudnn_interposer_marker")) {
    if (!shim_found.load(std::memory_order_relaxed) &&
        ucudnn::elf::address_of(tables, "cudnnCreate") && !is_cudnn_front(base_name(map->l_name))) {
      shim = tables;
      shim_found.store(true, std::memory_order_release);
    }
    return never_redirected(cookie);
  }
  const char* file = base_name(map->l_name);
  if (is_cudnn_front(file) || is_cudnn_front(tables.soname)) {
    const link_map* expected = nullptr;
    return cudnn.compare_exchange_strong(expected, map) ? LA_FLG_BINDTO : 0;
  }
  if (is_cudnn_sublibrary(file)) return never_redirected(cookie);  // cuDNN's own business
  // Another tool's wrapper of cuDNN (an API logger, a tracer): its lookups forward calls the
  // shim or the application already made. Preloaded after the shim, the shim's calls reach it
  // and it must reach cuDNN; preloaded before, its lookups find the shim anyway.
  if (defines_an_interposed_function(tables)) return never_redirected(cookie);
  return LA_FLG_BINDFROM;
}

uintptr_t la_symbind64(Elf64_Sym* symbol, unsigned int, uintptr_t* refcook, uintptr_t*,
                       unsigned int*, const char* name) {
  // glibc asks about a dlsym result when either side is marked (BINDFROM or BINDTO), a PLT
  // binding only when both are: the requester's cookie tells a lookup never to redirect.
  if (*refcook == kNeverRedirected) return symbol->st_value;
  if (std::strncmp(name, "cudnn", 5) != 0) return symbol->st_value;
  for (std::size_t i = 0; i < kCount; ++i)
    if (std::strcmp(name, kInterposed[i]) == 0) {
      void* function = shim_function(i);
      return function ? reinterpret_cast<uintptr_t>(function) : symbol->st_value;
    }
  return symbol->st_value;
}

}  // extern "C"
