#include "cudnn/library_symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace ucudnn::cudnn {

namespace {

struct DynamicTables {
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const std::uint32_t* gnu_hash = nullptr;
  const ElfW(Word) * sysv_hash = nullptr;
  const ElfW(Half) * versions = nullptr;
};

DynamicTables tables_of(const link_map* map) {
  DynamicTables t;
  // The dynamic linker has relocated these entries in place (x86-64, AArch64): they are
  // addresses; an entry below the load address is still an offset.
  auto address = [map](ElfW(Addr) value) {
    return value < map->l_addr ? value + map->l_addr : value;
  };
  for (const ElfW(Dyn)* d = map->l_ld; d && d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        t.symbols = reinterpret_cast<const ElfW(Sym)*>(address(d->d_un.d_ptr));
        break;
      case DT_STRTAB:
        t.strings = reinterpret_cast<const char*>(address(d->d_un.d_ptr));
        break;
      case DT_GNU_HASH:
        t.gnu_hash = reinterpret_cast<const std::uint32_t*>(address(d->d_un.d_ptr));
        break;
      case DT_HASH:
        t.sysv_hash = reinterpret_cast<const ElfW(Word)*>(address(d->d_un.d_ptr));
        break;
      case DT_VERSYM:
        t.versions = reinterpret_cast<const ElfW(Half)*>(address(d->d_un.d_ptr));
        break;
      default:
        break;
    }
  }
  return t;
}

std::uint32_t gnu_hash_of(const char* name) {
  std::uint32_t h = 5381;
  for (auto c = reinterpret_cast<const unsigned char*>(name); *c; ++c) h = h * 33 + *c;
  return h;
}

std::uint32_t sysv_hash_of(const char* name) {
  std::uint32_t h = 0;
  for (auto c = reinterpret_cast<const unsigned char*>(name); *c; ++c) {
    h = (h << 4) + *c;
    const std::uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

// A defined, visible function or object with this name (not a hidden older version).
const ElfW(Sym) * matching(const DynamicTables& t, std::uint32_t index, const char* name) {
  const ElfW(Sym)& s = t.symbols[index];
  if (s.st_shndx == SHN_UNDEF || std::strcmp(t.strings + s.st_name, name) != 0) return nullptr;
  if (t.versions && (t.versions[index] & 0x8000)) return nullptr;
  return &s;
}

const ElfW(Sym) * find(const DynamicTables& t, const char* name) {
  if (t.gnu_hash) {
    const std::uint32_t buckets = t.gnu_hash[0], offset = t.gnu_hash[1], bloom = t.gnu_hash[2];
    const auto* bucket = reinterpret_cast<const std::uint32_t*>(
        reinterpret_cast<const ElfW(Addr)*>(t.gnu_hash + 4) + bloom);
    const std::uint32_t* chain = bucket + buckets;
    const std::uint32_t h = gnu_hash_of(name);
    std::uint32_t i = bucket[h % buckets];
    if (i < offset) return nullptr;
    for (;; ++i) {
      const std::uint32_t link = chain[i - offset];
      if ((link | 1u) == (h | 1u))
        if (const ElfW(Sym)* s = matching(t, i, name)) return s;
      if (link & 1u) return nullptr;
    }
  }
  if (t.sysv_hash) {
    const ElfW(Word) buckets = t.sysv_hash[0];
    const ElfW(Word)* bucket = t.sysv_hash + 2;
    const ElfW(Word)* chain = bucket + buckets;
    for (ElfW(Word) i = bucket[sysv_hash_of(name) % buckets]; i != STN_UNDEF; i = chain[i])
      if (const ElfW(Sym)* s = matching(t, i, name)) return s;
  }
  return nullptr;
}

}  // namespace

void* library_symbol(void* library_handle, const char* name) {
  link_map* map = nullptr;
  if (!library_handle || dlinfo(library_handle, RTLD_DI_LINKMAP, &map) != 0 || !map) return nullptr;
  const DynamicTables t = tables_of(map);
  if (!t.symbols || !t.strings) return nullptr;
  const ElfW(Sym)* s = find(t, name);
  if (!s) return nullptr;
  if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC) return dlsym(library_handle, name);
  return reinterpret_cast<void*>(map->l_addr + s->st_value);
}

}  // namespace ucudnn::cudnn
