#include "cudnn/library_symbols.h"

#include <dlfcn.h>
#include <link.h>

#include "cudnn/elf_symbols.h"

namespace ucudnn::cudnn {

void* library_symbol(void* library_handle, const char* name) {
  link_map* map = nullptr;
  if (!library_handle || dlinfo(library_handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return nullptr;
  return elf::address_of(elf::tables_of(map), name);
}

}  // namespace ucudnn::cudnn
