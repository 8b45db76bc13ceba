#pragma once
// A 2-d convolution layer as the shim's application-like tests drive it: its cuDNN descriptors
// (NCHW float, size x size images) and device tensors (x, w, y and the gradients), the inputs
// filled with fresh random values.
#include <cudnn.h>

#include <cstddef>
#include <random>

#include "device_harness.h"

namespace ucudnn::testing {

struct LayerTensors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  void *x_data = nullptr, *w_data = nullptr, *y_data = nullptr;
  void *dx = nullptr, *dw = nullptr, *dy = nullptr;

  // c channels in, k out, a square filter with `pad` on each side, stride 1.
  LayerTensors(int n, int c, int k, int filter, int pad, int size, DeviceBuffers& buffers,
               std::mt19937_64& random) {
    cudnnCreateTensorDescriptor(&x);
    cudnnCreateTensorDescriptor(&y);
    cudnnCreateFilterDescriptor(&w);
    cudnnCreateConvolutionDescriptor(&conv);
    const int out = size + 2 * pad - filter + 1;
    cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, size, size);
    cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, out, out);
    cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, filter, filter);
    cudnnSetConvolution2dDescriptor(conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                    CUDNN_DATA_FLOAT);
    const std::size_t xs = std::size_t(n) * c * size * size, ys = std::size_t(n) * k * out * out,
                      ws = std::size_t(k) * c * filter * filter;
    x_data = buffers.allocate(xs);
    dx = buffers.allocate(xs);
    w_data = buffers.allocate(ws);
    dw = buffers.allocate(ws);
    y_data = buffers.allocate(ys);
    dy = buffers.allocate(ys);
    fill(x_data, xs, random);
    fill(w_data, ws, random);
    fill(dy, ys, random);
  }
  ~LayerTensors() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  LayerTensors(const LayerTensors&) = delete;
  LayerTensors& operator=(const LayerTensors&) = delete;
};

}  // namespace ucudnn::testing
