#pragma once
// A legacy-API program's convolution layers as a framework holds them (descriptors and device
// tensors), for the shim's preloaded tests: a fixture that checks the shim and the doubles are
// the ones loaded, makes layers of random data and calls Get_v7 and Forward on them.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "device_harness.h"
#include "support/random_seed.h"

namespace ucudnn::testing {

constexpr auto kVirtualForward = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;

inline void check(cudnnStatus_t status, const char* what) {
  ASSERT_EQ(status, CUDNN_STATUS_SUCCESS) << what;
}

// One convolution layer as a framework holds it: descriptors and device tensors.
struct Layer {
  int n, c, k, size, filter, pad;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr;

  std::size_t x_count() const { return std::size_t(n) * c * size * size; }
  std::size_t y_count() const { return std::size_t(n) * k * size * size; }
  std::size_t w_count() const { return std::size_t(k) * c * filter * filter; }
};

class LegacyLayers : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::getenv("FAKECUDA_TRACE")) << "CTest sets FAKECUDA_TRACE";
    Dl_info info{};
    ASSERT_TRUE(dladdr(reinterpret_cast<const void*>(&cudnnConvolutionForward), &info));
    ASSERT_NE(std::string(info.dli_fname).find("libucudnn_preload.so"), std::string::npos)
        << "run this test with LD_PRELOAD=libucudnn_preload.so (CTest does)";
    check(cudnnCreate(&handle), "cudnnCreate");
  }
  void TearDown() override {
    for (auto& l : layers) {
      cudnnDestroyTensorDescriptor(l.x);
      cudnnDestroyTensorDescriptor(l.y);
      cudnnDestroyFilterDescriptor(l.w);
      cudnnDestroyConvolutionDescriptor(l.conv);
    }
    if (handle) cudnnDestroy(handle);
  }
  void* device(std::size_t floats) { return buffers.allocate(floats); }
  // Each test uses shapes of its own: the process shares one store, and a kernel measured by
  // an earlier test would be planned from it without a benchmark.
  Layer& add_layer(int n, int c, int k, int filter, int pad) {
    Layer l{n, c, k, 16, filter, pad};
    cudnnCreateTensorDescriptor(&l.x);
    cudnnCreateTensorDescriptor(&l.y);
    cudnnCreateFilterDescriptor(&l.w);
    cudnnCreateConvolutionDescriptor(&l.conv);
    cudnnSetTensor4dDescriptor(l.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, 16, 16);
    cudnnSetTensor4dDescriptor(l.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, 16, 16);
    cudnnSetFilter4dDescriptor(l.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, filter, filter);
    cudnnSetConvolution2dDescriptor(l.conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    l.x_data = device(l.x_count());
    l.w_data = device(l.w_count());
    l.y_data = device(l.y_count());
    fill(l.x_data, l.x_count(), random.engine());
    fill(l.w_data, l.w_count(), random.engine());
    layers.push_back(l);
    return layers.back();
  }
  // The review's network: A = 3 -> k 5x5 pad 2, then three times B = k -> k 3x3 pad 1.
  void add_network(int k) {
    add_layer(16, 3, k, 5, 2);
    for (int i = 0; i < 3; ++i) add_layer(16, k, k, 3, 1);
  }
  cudnnStatus_t get_v7(const Layer& l, cudnnConvolutionFwdAlgoPerf_t* best) {
    int returned = 0;
    return cudnnGetConvolutionForwardAlgorithm_v7(handle, l.x, l.w, l.conv, l.y, 1, &returned,
                                                  best);
  }
  cudnnStatus_t forward(const Layer& l, int algorithm, void* workspace, std::size_t bytes,
                        float beta = 0) {
    const float alpha = 1;
    return cudnnConvolutionForward(handle, &alpha, l.x, l.x_data, l.w, l.w_data, l.conv,
                                   static_cast<cudnnConvolutionFwdAlgo_t>(algorithm), workspace,
                                   bytes, &beta, l.y, l.y_data);
  }

  SeededRandom random;
  cudnnHandle_t handle = nullptr;
  std::vector<Layer> layers;
  DeviceBuffers buffers;
};

}  // namespace ucudnn::testing
