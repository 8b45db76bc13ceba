// A program linked with -lcudnn (DT_NEEDED libcudnn.so.9), the way Caffe-era frameworks are: what
// a plain LD_PRELOAD was made for. Prints cudnnCreate's status and the forward algorithm count
// (the shim adds its virtual algorithm).
#include <cudnn.h>

#include <cstdio>

int main() {
  cudnnHandle_t handle = nullptr;
  const cudnnStatus_t status = cudnnCreate(&handle);
  std::printf("create status %d\n", static_cast<int>(status));
  int count = -1;
  if (status == CUDNN_STATUS_SUCCESS) {
    if (cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count) != CUDNN_STATUS_SUCCESS)
      count = -1;
    cudnnDestroy(handle);
  }
  std::printf("algorithms %d\n", count);
  return 0;
}
