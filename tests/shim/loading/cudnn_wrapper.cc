// Another tool's wrapper of cuDNN and the CUDA runtime, as API loggers and tracers are: it defines
// some of their functions, counts each call, and forwards it to the next definition in the
// process's lookup order (dlsym(RTLD_NEXT)), for the tests of ucudnn stacked with other
// interposers (interposer_stack_test.cc). Built four times, by what it wraps
// (UCUDNN_WRAPPED_SET): 1 cudnnGetVersion alone; 2 that and the calls that run a convolution;
// 3 every cuDNN and CUDA runtime function ucudnn calls. The first two export them under the
// real libraries' symbol versions (cudnn_wrapper.map), the third unversioned. 4 wraps set 2's
// functions without defining them, as tracers that hook the dynamic linker do: it defines dlsym,
// answers its wrappers for their names, and forwards each to what cuDNN's own handle gives
// (dlsym on dlopen("libcudnn.so.9", RTLD_NOLOAD)), so that under ucudnn's auditor, which hands
// that lookup the shim's function, the wrapper of ucudnn's call to cuDNN calls ucudnn back.
//
// At exit it writes "name calls" lines to $WRAPPER_LOG. $WRAPPER_FAIL names one function that
// fails instead of forwarding (a wrapper with a bug): cuDNN's CUDNN_STATUS_INTERNAL_ERROR.
//
// Each exported function is a jump through a slot holding a forwarder of the function's own
// type (an x86-64 or AArch64 stub), so that one line per function defines it.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "cudnn/backend_functions.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"

#if UCUDNN_WRAPPED_SET == 1
#define WRAPPED(X) X(cudnnGetVersion)
#elif UCUDNN_WRAPPED_SET == 2 || UCUDNN_WRAPPED_SET == 4
#define WRAPPED(X)                  \
  X(cudnnGetVersion)                \
  X(cudnnConvolutionForward)        \
  X(cudnnConvolutionBackwardData)   \
  X(cudnnConvolutionBackwardFilter) \
  X(cudnnBackendExecute)
#else
#define WRAPPED(X)                  \
  UCUDNN_CUDNN_FUNCTIONS(X)         \
  UCUDNN_CUDNN_BACKEND_FUNCTIONS(X) \
  UCUDNN_CUDA_FUNCTIONS(X)
#endif

namespace {

#define WRAPPED_INDEX(name) k_##name,
enum Index { WRAPPED(WRAPPED_INDEX) kCount };
#define WRAPPED_NAME(name) #name,
constexpr const char* kNames[] = {WRAPPED(WRAPPED_NAME)};

std::atomic<long> calls[kCount];

bool failing(Index i) {
  static const char* const fail = std::getenv("WRAPPER_FAIL");
  return fail && std::strcmp(fail, kNames[i]) == 0;
}

#if UCUDNN_WRAPPED_SET == 4
using Dlsym = void* (*)(void*, const char*);
// The C library's dlsym, not this one.
Dlsym real_dlsym() {
  static const Dlsym real = [] {
    // glibc 2.34 moved dlsym into libc; before, the architecture's first version names it.
    void* found = dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    for (const char* first : {"GLIBC_2.2.5", "GLIBC_2.17"})
      if (!found) found = dlvsym(RTLD_NEXT, "dlsym", first);
    return reinterpret_cast<Dlsym>(found);
  }();
  return real;
}
void* next_of(const char* name) {
  void* cudnn = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
  return cudnn ? real_dlsym()(cudnn, name) : nullptr;
}
#else
void* next_of(const char* name) {
  return dlsym(RTLD_NEXT, name);
}
#endif

// A call that comes back to its own wrapper on the same thread loops: said, and stopped there,
// rather than left to fill the stack or wait on a lock forever. The depth is a pthread key, not
// thread_local: LeakSanitizer's exit check crashes on a thread_local in this preloaded library
// beside the auditor (its tracer thread faults reading it).
pthread_key_t depth_key() {
  static const pthread_key_t key = [] {
    pthread_key_t made;
    pthread_key_create(&made, nullptr);
    return made;
  }();
  return key;
}
struct Depth {
  Depth(const char* name) {
    const auto depth = reinterpret_cast<std::intptr_t>(pthread_getspecific(depth_key())) + 1;
    pthread_setspecific(depth_key(), reinterpret_cast<void*>(depth));
    if (depth <= 8) return;
    std::fprintf(stderr, "wrapper: %s calls itself back without end\n", name);
    std::_Exit(97);
  }
  ~Depth() {
    const auto depth = reinterpret_cast<std::intptr_t>(pthread_getspecific(depth_key()));
    pthread_setspecific(depth_key(), reinterpret_cast<void*>(depth - 1));
  }
};

template <typename Function>
struct Forward;
template <typename Result, typename... Arguments>
struct Forward<Result (*)(Arguments...)> {
  template <Index I>
  static Result call(Arguments... arguments) {
    calls[I].fetch_add(1, std::memory_order_relaxed);
    const Depth nested(kNames[I]);
    using Next = Result (*)(Arguments...);
    static const Next next = reinterpret_cast<Next>(next_of(kNames[I]));
    if constexpr (std::is_same_v<Result, cudnnStatus_t>) {
      if (failing(I)) return CUDNN_STATUS_INTERNAL_ERROR;
      if (!next) return CUDNN_STATUS_NOT_INITIALIZED;
    } else if constexpr (std::is_same_v<Result, cudaError_t>) {
      if (!next) return cudaErrorInitializationError;
    } else {
      if (!next) return Result{};
    }
    return next(arguments...);
  }
};

__attribute__((destructor)) void write_log() {
  const char* path = std::getenv("WRAPPER_LOG");
  if (!path) return;
  if (std::FILE* log = std::fopen(path, "w")) {
    for (int i = 0; i < kCount; ++i) std::fprintf(log, "%s %ld\n", kNames[i], calls[i].load());
    std::fclose(log);
  }
}

}  // namespace

#if UCUDNN_WRAPPED_SET == 4
extern "C" void* dlsym(void* handle, const char* symbol) {
#define WRAPPED_ANSWER(name)           \
  if (std::strcmp(symbol, #name) == 0) \
    return reinterpret_cast<void*>(&Forward<decltype(&::name)>::call<k_##name>);
  WRAPPED(WRAPPED_ANSWER)
#undef WRAPPED_ANSWER
  return real_dlsym()(handle, symbol);
}
#else
#if defined(__x86_64__)
#define WRAPPED_JUMP(name) "jmp *" #name "_slot(%rip)\n"
#elif defined(__aarch64__)
#define WRAPPED_JUMP(name) \
  "adrp x16, " #name "_slot\nldr x16, [x16, :lo12:" #name "_slot]\nbr x16\n"
#else
#error "cudnn_wrapper.cc: no jump stub for this architecture"
#endif

#define WRAPPED_DEFINE(name)                                                                   \
  extern "C" __attribute__((visibility("hidden"), used)) decltype(&::name) const name##_slot = \
      &Forward<decltype(&::name)>::call<k_##name>;                                             \
  asm(".pushsection .text\n.globl " #name "\n.type " #name ", @function\n" #name               \
      ":\n" WRAPPED_JUMP(name) ".size " #name ", .-" #name "\n.popsection\n");
WRAPPED(WRAPPED_DEFINE)
#endif
