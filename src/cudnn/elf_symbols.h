#pragma once
// A loaded object's own dynamic symbol table, read in place from its link_map: the definition
// of a name there (GNU or SysV hash), and the object's DT_SONAME. Header-only and free of
// dependencies, for the two places that must not ask the dynamic linker: ucudnn resolving the
// real cuDNN (library_symbols.cc: dlsym's answer can be redirected) and the LD_AUDIT auditor
// (which runs inside the dynamic linker's callbacks).
#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

namespace ucudnn::elf {

struct DynamicTables {
  ElfW(Addr) base = 0;
  const ElfW(Sym) * symbols = nullptr;
  const char* strings = nullptr;
  const std::uint32_t* gnu_hash = nullptr;
  const ElfW(Word) * sysv_hash = nullptr;
  const ElfW(Half) * versions = nullptr;
  const char* soname = nullptr;
};

inline DynamicTables tables_of(const link_map* map) {
  DynamicTables t{map->l_addr};
  // The dynamic linker has relocated these entries in place (x86-64, AArch64): they are
  // addresses; an entry below the load address is still an offset.
  auto address = [map](ElfW(Addr) value) {
    return value < map->l_addr ? value + map->l_addr : value;
  };
  ElfW(Xword) soname = 0;
  bool has_soname = false;
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
      case DT_SONAME:
        soname = d->d_un.d_val;
        has_soname = true;
        break;
      default:
        break;
    }
  }
  if (has_soname && t.strings) t.soname = t.strings + soname;
  return t;
}

inline std::uint32_t gnu_hash_of(const char* name) {
  std::uint32_t h = 5381;
  for (auto c = reinterpret_cast<const unsigned char*>(name); *c; ++c) h = h * 33 + *c;
  return h;
}

inline std::uint32_t sysv_hash_of(const char* name) {
  std::uint32_t h = 0;
  for (auto c = reinterpret_cast<const unsigned char*>(name); *c; ++c) {
    h = (h << 4) + *c;
    const std::uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

// A global or weak definition with this name, of the default (not a hidden older) version.
// (The st_info macros are the same for both ELF classes.)
inline const ElfW(Sym) * matching(const DynamicTables& t, std::uint32_t index, const char* name) {
  const ElfW(Sym)& s = t.symbols[index];
  if (s.st_shndx == SHN_UNDEF || ELF64_ST_BIND(s.st_info) == STB_LOCAL ||
      std::strcmp(t.strings + s.st_name, name) != 0)
    return nullptr;
  if (t.versions && ((t.versions[index] & 0x8000) || (t.versions[index] & 0x7fff) == 0))
    return nullptr;
  return &s;
}

inline const ElfW(Sym) * find(const DynamicTables& t, const char* name) {
  if (!t.symbols || !t.strings) return nullptr;
  if (t.gnu_hash && t.gnu_hash[0] > 0) {
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
  if (t.sysv_hash && t.sysv_hash[0] > 0) {
    const ElfW(Word) buckets = t.sysv_hash[0];
    const ElfW(Word)* bucket = t.sysv_hash + 2;
    const ElfW(Word)* chain = bucket + buckets;
    for (ElfW(Word) i = bucket[sysv_hash_of(name) % buckets]; i != STN_UNDEF; i = chain[i])
      if (const ElfW(Sym)* s = matching(t, i, name)) return s;
  }
  return nullptr;
}

// The address of `name`'s definition in the object, or null: also for an indirect function
// (IFUNC), whose address only its resolver knows.
inline void* address_of(const DynamicTables& t, const char* name) {
  const ElfW(Sym)* s = find(t, name);
  if (!s || ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC) return nullptr;
  return reinterpret_cast<void*>(t.base + s->st_value);
}

}  // namespace ucudnn::elf
