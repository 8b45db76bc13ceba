#include "cudnn/cuda_runtime.h"

#include "cudnn/runtime_call_counts.h"
#include "cudnn/runtime_library.h"

namespace ucudnn::cudnn {

namespace {

CudaRuntime resolve() {
  static RuntimeLibrary& library = *new RuntimeLibrary("libcudart.so.13", "libcudart.so.13");
  return CudaRuntime::resolve([](const char* name) { return library.function(name); });
}

// The library's own functions; cuda_runtime() hands out the same table with the calls that
// allocate, free or synchronize counted on their way through.
const CudaRuntime& uncounted() {
  static const CudaRuntime& runtime = *new CudaRuntime(resolve());
  return runtime;
}

template <auto member, RuntimeCall call, typename Result, typename... Arguments>
Result counted(Arguments... arguments) {
  count_runtime_call(call);
  return (uncounted().*member)(arguments...);
}

template <auto member, RuntimeCall call, typename Result, typename... Arguments>
void count_through(RealFunction<Result (*)(Arguments...)>& slot) {
  if (slot) slot = &counted<member, call, Result, Arguments...>;
}

CudaRuntime counting() {
  CudaRuntime runtime = uncounted();
  count_through<&CudaRuntime::cudaMalloc, RuntimeCall::kAllocation>(runtime.cudaMalloc);
  count_through<&CudaRuntime::cudaHostAlloc, RuntimeCall::kAllocation>(runtime.cudaHostAlloc);
  count_through<&CudaRuntime::cudaFree, RuntimeCall::kFree>(runtime.cudaFree);
  count_through<&CudaRuntime::cudaFreeHost, RuntimeCall::kFree>(runtime.cudaFreeHost);
  count_through<&CudaRuntime::cudaStreamSynchronize, RuntimeCall::kSynchronization>(
      runtime.cudaStreamSynchronize);
  count_through<&CudaRuntime::cudaEventSynchronize, RuntimeCall::kSynchronization>(
      runtime.cudaEventSynchronize);
  return runtime;
}

}  // namespace

const CudaRuntime& cuda_runtime() {
  // Never destroyed: the application may call cuDNN from its own static destructors.
  static const CudaRuntime& runtime = *new CudaRuntime(counting());
  return runtime;
}

}  // namespace ucudnn::cudnn
