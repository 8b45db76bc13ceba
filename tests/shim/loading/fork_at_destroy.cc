// A library preloaded before ucudnn that, at the application's first cudnnDestroy, forks a child
// that ends at once with exit(), as a program does that starts a helper process after training
// (or a tool above cuDNN that forks one). The parent waits for the child and says on standard
// error how it ended ("forked child: exit status N" or "forked child: signal N"), then goes on.
// For interposer_stack_test.cc: a child inherits ucudnn's exit work and must not do it.
#include <cudnn.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

extern "C" __attribute__((visibility("default"))) cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  static std::atomic<bool> forked{false};
  if (!forked.exchange(true)) {
    std::fflush(nullptr);  // what the application buffered is printed once, by the parent
    const pid_t child = ::fork();
    if (child == 0) std::exit(0);
    int status = 0;
    if (child > 0 && ::waitpid(child, &status, 0) == child) {
      if (WIFEXITED(status))
        std::fprintf(stderr, "forked child: exit status %d\n", WEXITSTATUS(status));
      else if (WIFSIGNALED(status))
        std::fprintf(stderr, "forked child: signal %d\n", WTERMSIG(status));
    } else {
      std::fprintf(stderr, "forked child: could not fork or wait\n");
    }
  }
  using Destroy = cudnnStatus_t (*)(cudnnHandle_t);
  const auto next = reinterpret_cast<Destroy>(::dlsym(RTLD_NEXT, "cudnnDestroy"));
  return next ? next(handle) : CUDNN_STATUS_NOT_INITIALIZED;
}
