#pragma once
// A function of a loaded shared library, read from the library's own dynamic symbol table
// (elf_symbols.h) rather than asked of the dynamic linker: dlsym on a handle can be redirected,
// by an LD_AUDIT auditor (glibc asks one about every dlsym result in an object it audits) or by
// a preloaded object, and ucudnn must reach the real function, never itself.
namespace ucudnn::cudnn {

// nullptr when the library does not define `name`, or defines it as an indirect function
// (IFUNC), which cuDNN and the CUDA runtime do not use: asking dlsym instead could be
// redirected.
void* library_symbol(void* library_handle, const char* name);

}  // namespace ucudnn::cudnn
