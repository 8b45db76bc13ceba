#pragma once
// Shared by the doubles' tests: random 2-d convolution problems in every layout the doubles
// accept, the cuDNN descriptors describing one, and device buffers of the runtime double.
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/convolution_problem.h"
#include "reduced_precision.h"
#include "support/random_seed.h"

namespace ucudnn::fakecuda::testing {

inline cudnnDataType_t cudnn_type(DataType type) {
  switch (type) {
    case DataType::kDouble:
      return CUDNN_DATA_DOUBLE;
    case DataType::kHalf:
      return CUDNN_DATA_HALF;
    case DataType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      return CUDNN_DATA_FLOAT;
  }
}

inline std::size_t element_size(DataType type) {
  return ucudnn::element_size(type);
}

// `bytes` of tensor data of `type`, uniform in [-1, 1) (16-bit types rounded from float).
inline std::vector<unsigned char> random_tensor_bytes(std::size_t bytes, DataType type,
                                                      std::mt19937_64& engine) {
  std::vector<unsigned char> data(bytes);
  std::uniform_real_distribution<double> value(-1, 1);
  const std::size_t count = bytes / ucudnn::element_size(type);
  for (std::size_t i = 0; i < count; ++i) {
    const double v = value(engine);
    switch (type) {
      case DataType::kDouble:
        reinterpret_cast<double*>(data.data())[i] = v;
        break;
      case DataType::kHalf:
        reinterpret_cast<cpu::Half*>(data.data())[i] = cpu::to_half(static_cast<float>(v));
        break;
      case DataType::kBFloat16:
        reinterpret_cast<cpu::BFloat16*>(data.data())[i] = cpu::to_bfloat16(static_cast<float>(v));
        break;
      default:
        reinterpret_cast<float*>(data.data())[i] = static_cast<float>(v);
    }
  }
  return data;
}

// Elements from the first to the last one a strided tensor touches.
inline std::int64_t span_elements(const TensorShape& shape) {
  std::int64_t last = 0;
  for (std::size_t i = 0; i < shape.dims.size(); ++i)
    last += (shape.dims[i] - 1) * shape.strides[i];
  return last + 1;
}

// x and y NCHW or NHWC, sometimes with a gap between images (an N stride larger than
// packed); the filter NCHW or NHWC; groups, stride, padding, dilation, both modes; float or
// double, or half or bfloat16 computed in float.
inline ConvolutionProblem random_problem(ucudnn::testing::SeededRandom& random) {
  for (;;) {
    Conv2dShape s;
    s.groups = random.uniform(1, 3);
    s.batch = random.uniform(1, 4);
    s.in_channels = s.groups * random.uniform(1, 3);
    s.out_channels = s.groups * random.uniform(1, 3);
    s.height = random.uniform(3, 9);
    s.width = random.uniform(3, 9);
    s.kernel_h = random.uniform(1, 3);
    s.kernel_w = random.chance(0.7) ? s.kernel_h : random.uniform(1, 3);
    s.pad_h = random.uniform(0, 2), s.pad_w = random.uniform(0, 2);
    s.stride_h = random.uniform(1, 2), s.stride_w = random.uniform(1, 2);
    s.dilation_h = random.uniform(1, 2), s.dilation_w = random.uniform(1, 2);
    if (random.chance(0.4)) s.stride_h = s.stride_w = s.dilation_h = s.dilation_w = 1;
    if (s.height + 2 * s.pad_h < s.dilation_h * (s.kernel_h - 1) + 1 ||
        s.width + 2 * s.pad_w < s.dilation_w * (s.kernel_w - 1) + 1)
      continue;
    const DataType types[] = {DataType::kFloat, DataType::kFloat, DataType::kDouble,
                              DataType::kHalf, DataType::kBFloat16};
    ConvolutionProblem p = make_conv2d_problem(s, types[random.uniform(0, 4)]);
    if (ucudnn::element_size(p.data_type) == 2) p.compute_type = DataType::kFloat;
    if (random.chance(0.3)) {
      p.x = TensorShape::packed_channels_last(p.x.dims);
      p.y = TensorShape::packed_channels_last(p.y.dims);
    }
    if (random.chance(0.3)) p.w = TensorShape::packed_channels_last(p.w.dims);
    if (random.chance(0.3)) {
      p.x.strides[0] += random.uniform(1, 5);
      p.y.strides[0] += random.uniform(1, 5);
    }
    if (random.chance(0.5)) p.mode = ConvolutionMode::kConvolution;
    return p;
  }
}

// The caller-side descriptors of a problem, made through the double's C API.
class Descriptors {
 public:
  explicit Descriptors(const ConvolutionProblem& p) {
    const cudnnDataType_t type = cudnn_type(p.data_type);
    EXPECT_EQ(cudnnCreateTensorDescriptor(&x), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateTensorDescriptor(&y), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateFilterDescriptor(&w), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
    set_tensor(x, p.x, type);
    set_tensor(y, p.y, type);
    const bool nhwc = p.w.strides == TensorShape::packed_channels_last(p.w.dims).strides &&
                      p.w.strides != TensorShape::packed(p.w.dims).strides;
    const std::vector<int> w_dims(p.w.dims.begin(), p.w.dims.end());
    EXPECT_EQ(cudnnSetFilterNdDescriptor(w, type, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW, 4,
                                         w_dims.data()),
              CUDNN_STATUS_SUCCESS);
    const std::vector<int> pad(p.padding.begin(), p.padding.end()),
        stride(p.stride.begin(), p.stride.end()), dilation(p.dilation.begin(), p.dilation.end());
    EXPECT_EQ(
        cudnnSetConvolutionNdDescriptor(
            conv, 2, pad.data(), stride.data(), dilation.data(),
            p.mode == ConvolutionMode::kConvolution ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION,
            cudnn_type(p.compute_type)),
        CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudnnSetConvolutionGroupCount(conv, static_cast<int>(p.groups)),
              CUDNN_STATUS_SUCCESS);
  }
  ~Descriptors() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;

  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

 private:
  static void set_tensor(cudnnTensorDescriptor_t desc, const TensorShape& shape,
                         cudnnDataType_t type) {
    const std::vector<int> dims(shape.dims.begin(), shape.dims.end()),
        strides(shape.strides.begin(), shape.strides.end());
    EXPECT_EQ(cudnnSetTensorNdDescriptor(desc, type, static_cast<int>(dims.size()), dims.data(),
                                         strides.data()),
              CUDNN_STATUS_SUCCESS);
  }
};

// One cudaMalloc allocation of the runtime double.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    EXPECT_EQ(cudaMalloc(&data_, bytes), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
};

// A cuDNN handle of the double on its own stream.
class Handle {
 public:
  Handle() {
    EXPECT_EQ(cudnnCreate(&handle_), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
    EXPECT_EQ(cudnnSetStream(handle_, stream_), CUDNN_STATUS_SUCCESS);
  }
  ~Handle() {
    cudnnDestroy(handle_);
    cudaStreamDestroy(stream_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  operator cudnnHandle_t() const { return handle_; }
  cudaStream_t stream() const { return stream_; }

 private:
  cudnnHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
};

}  // namespace ucudnn::fakecuda::testing
