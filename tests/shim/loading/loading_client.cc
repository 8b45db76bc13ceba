// A program that reaches cuDNN the ways frameworks do without linking it, for the loading-style
// tests: dlopen of a name or a path with RTLD_LOCAL, RTLD_GLOBAL or RTLD_DEEPBIND and dlsym on
// the handle (TensorFlow, XLA, JAX; PaddlePaddle opens "libcudnn.so"), or dlopen of a plugin that
// is linked with cuDNN and finds its own copy through DT_RPATH (a PyTorch-style wheel). It prints
// what cudnnGetConvolutionForwardAlgorithmMaxCount answers: cuDNN counts its algorithms, and
// ucudnn's shim adds its virtual one, so the count says who answered.
//
// Usage: loading_client cudnn NAME_OR_PATH local|global|deepbind
//        loading_client plugin PATH local|deepbind
#include <cudnn.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: loading_client cudnn|plugin NAME_OR_PATH local|global|deepbind\n");
    return 2;
  }
  int flags = RTLD_NOW;
  if (std::strcmp(argv[3], "global") == 0)
    flags |= RTLD_GLOBAL;
  else if (std::strcmp(argv[3], "deepbind") == 0)
    flags |= RTLD_LOCAL | RTLD_DEEPBIND;
  else
    flags |= RTLD_LOCAL;
  void* library = dlopen(argv[2], flags);
  if (!library) {
    std::fprintf(stderr, "loading_client: %s\n", dlerror());
    return 1;
  }
  int count = -1;
  if (std::strcmp(argv[1], "plugin") == 0) {
    auto plugin = reinterpret_cast<int (*)()>(dlsym(library, "plugin_algorithm_count"));
    if (!plugin) return 1;
    count = plugin();
  } else {
    auto create = reinterpret_cast<decltype(&cudnnCreate)>(dlsym(library, "cudnnCreate"));
    auto destroy = reinterpret_cast<decltype(&cudnnDestroy)>(dlsym(library, "cudnnDestroy"));
    auto max_count = reinterpret_cast<decltype(&cudnnGetConvolutionForwardAlgorithmMaxCount)>(
        dlsym(library, "cudnnGetConvolutionForwardAlgorithmMaxCount"));
    if (!create || !destroy || !max_count) return 1;
    cudnnHandle_t handle = nullptr;
    const cudnnStatus_t status = create(&handle);
    std::printf("create status %d\n", static_cast<int>(status));
    if (status == CUDNN_STATUS_SUCCESS) {
      if (max_count(handle, &count) != CUDNN_STATUS_SUCCESS) count = -1;
      destroy(handle);
    }
  }
  std::printf("algorithms %d\n", count);
  return 0;
}
