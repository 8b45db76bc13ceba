#pragma once
// Finds a shared library the process uses (or will use) without linking it: the object that
// defines `anchor` after ours (dlvsym(RTLD_NEXT, anchor, version), then dlsym(RTLD_NEXT,
// anchor)), then the library already loaded under `soname` (RTLD_NOLOAD: the case where a
// plugin loaded it RTLD_LOCAL), then `soname` by the usual search. Every symbol is then
// taken from that one handle, so two copies in one process are never mixed.
namespace ucudnn::cudnn {

// nullptr when the library cannot be found. The handle stays open for the process.
void* open_runtime_library(const char* anchor, const char* version, const char* soname);

}  // namespace ucudnn::cudnn
