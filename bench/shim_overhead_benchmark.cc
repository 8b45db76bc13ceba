// The per-call cost of ucudnn on a planned convolution: the same Forward call made directly
// on the cuDNN test doubles (a concrete algorithm), through the LD_PRELOAD shim with a
// concrete algorithm (pass-through), and through the shim with the virtual algorithm (a
// plan of one undivided micro-batch, so both make exactly one call of the doubles). The
// doubles skip the arithmetic (FAKECUDA_COMPUTE=0): what remains is call overhead.
// Target: planned - direct under 1 µs. NewHandleFindsCachedPlan - NewHandle: what a kernel
// whose plan is stored costs to plan. The program re-executes itself under LD_PRELOAD and
// LD_LIBRARY_PATH when they are not set.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

struct Setup {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr, *workspace = nullptr;
  decltype(&cudnnConvolutionForward) direct = nullptr;

  Setup() {
    cudnnCreate(&handle);
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 32, 64, 28, 28);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 64, 64, 3, 3);
    cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 32, 64, 28, 28);
    cudaMalloc(&x_data, 32 * 64 * 28 * 28 * 4);
    cudaMalloc(&y_data, 32 * 64 * 28 * 28 * 4);
    cudaMalloc(&w_data, 64 * 64 * 9 * 4);
    cudaMalloc(&workspace, 64 << 20);
    void* library = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_NOLOAD);
    direct = reinterpret_cast<decltype(direct)>(dlsym(library, "cudnnConvolutionForward"));
  }
  cudnnStatus_t call(decltype(&cudnnConvolutionForward) function, int algorithm) const {
    const float one = 1, zero = 0;
    return function(handle, &one, x, x_data, w, w_data, conv,
                    static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), workspace, 64 << 20, &zero,
                    y, y_data);
  }
};

const Setup& setup() {
  static const Setup s;
  return s;
}

void run(benchmark::State& state, decltype(&cudnnConvolutionForward) function, int algorithm) {
  const Setup& s = setup();
  if (s.call(function, algorithm) != CUDNN_STATUS_SUCCESS) {  // plans on first use
    state.SkipWithError("the convolution call failed");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(s.call(function, algorithm));
}

void Direct(benchmark::State& state) {
  run(state, setup().direct, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
}
void PassThrough(benchmark::State& state) {
  run(state, &cudnnConvolutionForward, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
}
void Planned(benchmark::State& state) {
  run(state, &cudnnConvolutionForward, CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
}

// A kernel whose plan is in the database, met by a new handle (a new process, a new
// framework context): the cost of finding its plan, beyond creating the handle. After the
// first lookup it must cost no SQLite query.
void find_on_new_handle(benchmark::State& state, bool find) {
  const Setup& s = setup();
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t perf{};
  if (cudnnFindConvolutionForwardAlgorithm(s.handle, s.x, s.w, s.conv, s.y, 1, &returned,
                                           &perf) != CUDNN_STATUS_SUCCESS) {  // plans, stores
    state.SkipWithError("cudnnFindConvolutionForwardAlgorithm failed");
    return;
  }
  for (auto _ : state) {
    cudnnHandle_t handle = nullptr;
    cudnnCreate(&handle);
    if (find)
      benchmark::DoNotOptimize(
          cudnnFindConvolutionForwardAlgorithm(handle, s.x, s.w, s.conv, s.y, 1, &returned, &perf));
    cudnnDestroy(handle);
  }
}
void NewHandle(benchmark::State& state) {
  find_on_new_handle(state, false);
}
void NewHandleFindsCachedPlan(benchmark::State& state) {
  find_on_new_handle(state, true);
}

BENCHMARK(Direct);
BENCHMARK(PassThrough);
BENCHMARK(Planned);
BENCHMARK(NewHandle);
BENCHMARK(NewHandleFindsCachedPlan);

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("UCUDNN_OVERHEAD_CHILD")) {
    setenv("UCUDNN_OVERHEAD_CHILD", "1", 1);
    setenv("LD_PRELOAD", UCUDNN_PRELOAD, 1);
    setenv("LD_LIBRARY_PATH", UCUDNN_FAKECUDA_DIR, 1);
    setenv("FAKECUDA_COMPUTE", "0", 1);
    // One undivided micro-batch: the planned call makes exactly one call of the doubles.
    setenv("UCUDNN_BATCH_SIZE_POLICY", "undivided", 1);
    // The plans go to a database of this run (removed at the end) unless one is named.
    static std::string database =
        "/tmp/ucudnn-bench-shim-overhead-" + std::to_string(getpid()) + ".db";
    setenv("UCUDNN_DATABASE", database.c_str(), 0);
    execv("/proc/self/exe", argv);
    std::perror("ucudnn-bench-shim-overhead: exec");
    return 1;
  }
  Dl_info info{};
  dladdr(reinterpret_cast<void*>(&cudnnConvolutionForward), &info);
  if (!info.dli_fname || !std::strstr(info.dli_fname, "ucudnn_preload") || !setup().direct) {
    std::fprintf(stderr, "ucudnn-bench-shim-overhead: the shim or the doubles are not loaded\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const std::string database = std::getenv("UCUDNN_DATABASE");
  if (database.rfind("/tmp/ucudnn-bench-shim-overhead-", 0) == 0)
    for (const char* suffix : {"", ".lock", "-journal"}) std::remove((database + suffix).c_str());
  return 0;
}
