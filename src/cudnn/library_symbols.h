#pragma once
// A function of a loaded shared library, read from the library's own dynamic symbol table rather
// than asked of the dynamic linker: dlsym's answer can be redirected, by an LD_AUDIT auditor
// (ucudnn's own redirects the cuDNN functions it interposes to the shim, for every dlsym on
// cuDNN, the shim's included) or by a preloaded object, and ucudnn must reach the real
// function, never itself.
namespace ucudnn::cudnn {

// nullptr when the library does not define `name` (or defines it indirectly, as an IFUNC, which
// only the dynamic linker can resolve: then dlsym's answer is taken).
void* library_symbol(void* library_handle, const char* name);

}  // namespace ucudnn::cudnn
