// A framework's plugin (a PyTorch-style extension): linked with cuDNN, which it finds through its
// DT_RPATH (set to $ORIGIN by the test, which puts a copy of cuDNN beside it), and opened by the
// program with dlopen. Its calls bind through its PLT.
#include <cudnn.h>

extern "C" __attribute__((visibility("default"))) int plugin_algorithm_count() {
  cudnnHandle_t handle = nullptr;
  if (cudnnCreate(&handle) != CUDNN_STATUS_SUCCESS) return -1;
  int count = -1;
  if (cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count) != CUDNN_STATUS_SUCCESS)
    count = -1;
  cudnnDestroy(handle);
  return count;
}
