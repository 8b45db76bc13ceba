#pragma once
// A framework's convolution under the preloaded shim, on the cuDNN/CUDA test doubles: a small
// problem with device buffers (8 images, 4 -> 6 channels, 10x10, 3x3, pad 1) for the tests of
// every function libucudnn_preload.so exports (exported_api_test.cc and
// exported_api_bad_arguments_test.cc). The process runs with LD_PRELOAD at the shim and
// LD_LIBRARY_PATH at the doubles (CTest sets both), and the fixture checks that first.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "device_harness.h"

namespace ucudnn::testing {

// ucudnn's virtual algorithm: each operation's *_ALGO_COUNT.
constexpr auto kVirtualForward = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
constexpr auto kVirtualData = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
constexpr auto kVirtualFilter = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;

inline std::string library_of(const void* symbol) {
  Dl_info info{};
  return dladdr(symbol, &info) && info.dli_fname ? info.dli_fname : "";
}

inline void check(cudnnStatus_t status, const char* what) {
  ASSERT_EQ(status, CUDNN_STATUS_SUCCESS) << what;
}

// A small convolution with device buffers: 8 images, 4 -> 6 channels, 10x10, 3x3, pad 1.
class Preloaded : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(library_of(reinterpret_cast<const void*>(&cudnnConvolutionForward))
                  .find("libucudnn_preload.so"),
              std::string::npos)
        << "run this test with LD_PRELOAD=libucudnn_preload.so (CTest does)";
    cudaDeviceProp properties{};
    ASSERT_EQ(cudaGetDeviceProperties(&properties, 0), cudaSuccess);
    ASSERT_NE(std::string(properties.name).find("fakecuda"), std::string::npos)
        << "the cuDNN/CUDA test doubles are not the libraries loaded";
    check(cudnnCreate(&handle), "cudnnCreate");
    check(cudnnCreateTensorDescriptor(&x), "x");
    check(cudnnCreateTensorDescriptor(&y), "y");
    check(cudnnCreateFilterDescriptor(&w), "w");
    check(cudnnCreateConvolutionDescriptor(&conv), "conv");
    check(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, 10, 10), "x");
    check(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, 3, 3), "w");
    check(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT),
          "conv");
    check(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, 10, 10), "y");
    check(cudnnCreateTensorDescriptor(&bad_y), "bad y");
    check(cudnnSetTensor4dDescriptor(bad_y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, 9, 10),
          "bad y");
    x_data = device(n * c * 100);
    w_data = device(k * c * 9);
    y_data = device(n * k * 100);
    workspace = static_cast<char*>(device(1 << 20));  // floats: 4 MiB
  }
  void TearDown() override {
    if (bad_y) cudnnDestroyTensorDescriptor(bad_y);
    if (x) cudnnDestroyTensorDescriptor(x);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (handle) cudnnDestroy(handle);
  }
  void* device(std::size_t floats) { return buffers.allocate(floats); }

  const int n = 8, c = 4, k = 6;
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bad_y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr;
  char* workspace = nullptr;
  DeviceBuffers buffers;
  const float one = 1, zero = 0;
};

}  // namespace ucudnn::testing
