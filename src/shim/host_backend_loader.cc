#include "shim/host_backend_loader.h"

#include <dlfcn.h>

namespace ucudnn::shim {

namespace {
constexpr const char* kPluginName = "libucudnn_host.so";

// The folder of the library this function is in (the preload library or libucudnn.so).
std::string own_folder() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<const void*>(&own_folder), &info) || !info.dli_fname) return {};
  const std::string path = info.dli_fname;
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}
}  // namespace

HostBackend* load_host_backend(std::string& error) {
  const std::string path = own_folder() + kPluginName;
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* why = dlerror();
    error = "cannot load " + path + ": " + (why ? why : "unknown error");
    return nullptr;
  }
  // Never closed: host functions queued on streams may run its code until exit.
  auto entry = reinterpret_cast<HostBackendEntryPoint>(dlsym(library, kHostBackendEntryPoint));
  if (!entry) {
    error = path + " lacks " + kHostBackendEntryPoint;
    return nullptr;
  }
  try {
    if (HostBackend* backend = entry()) return backend;
    error = path + " gave no backend";
  } catch (const std::exception& failure) {
    error = path + ": " + failure.what();
  }
  return nullptr;
}

}  // namespace ucudnn::shim
