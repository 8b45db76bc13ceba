// descriptor_probe's fixed calls: every descriptor function once with null and unset
// arguments, which the real cuDNN and the double must answer alike.
#include <cudnn.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "descriptor_probe_calls.h"

namespace ucudnn::fakecuda::probe {

std::vector<Call> fixed_calls() {
  std::vector<Call> calls;
  auto add = [&](std::string what, std::function<cudnnStatus_t()> run) {
    calls.push_back({std::move(what), [run] { return status_text(run()); }});
  };
  add("CreateTensorDescriptor(null)", [] { return cudnnCreateTensorDescriptor(nullptr); });
  add("CreateFilterDescriptor(null)", [] { return cudnnCreateFilterDescriptor(nullptr); });
  add("CreateConvolutionDescriptor(null)",
      [] { return cudnnCreateConvolutionDescriptor(nullptr); });
  add("DestroyTensorDescriptor(null)", [] { return cudnnDestroyTensorDescriptor(nullptr); });
  add("DestroyFilterDescriptor(null)", [] { return cudnnDestroyFilterDescriptor(nullptr); });
  add("DestroyConvolutionDescriptor(null)",
      [] { return cudnnDestroyConvolutionDescriptor(nullptr); });
  add("SetTensor4dDescriptor(null desc)", [] {
    return cudnnSetTensor4dDescriptor(nullptr, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
  });
  add("SetTensorNdDescriptor(null dims)", [] {
    const int strides[4] = {1, 1, 1, 1};
    return cudnnSetTensorNdDescriptor(new_tensor(), CUDNN_DATA_FLOAT, 4, nullptr, strides);
  });
  add("SetTensorNdDescriptor(null strides)", [] {
    const int dims[4] = {1, 1, 1, 1};
    return cudnnSetTensorNdDescriptor(new_tensor(), CUDNN_DATA_FLOAT, 4, dims, nullptr);
  });
  calls.push_back({"GetTensorNdDescriptor/GetTensorSizeInBytes(unset)",
                   [] { return tensor_readback(new_tensor()); }});
  calls.push_back({"GetFilterNdDescriptor/GetFilterSizeInBytes(unset)",
                   [] { return filter_readback(new_filter()); }});
  calls.push_back({"GetConvolutionNdDescriptor(unset)",
                   [] { return convolution_readback(new_convolution()); }});
  add("GetTensorSizeInBytes(null size)", [] {
    auto t = new_tensor();
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1);
    return cudnnGetTensorSizeInBytes(t, nullptr);
  });
  for (const int rank : {2, 3, 5})
    calls.push_back({"GetTensor4dDescriptor(" + std::to_string(rank) + "-d)", [rank] {
                       auto t = new_tensor();
                       const int dims[5] = {2, 3, 4, 5, 6};
                       cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, rank,
                                                    dims);
                       cudnnDataType_t type{};
                       int v[8] = {};
                       const auto status = cudnnGetTensor4dDescriptor(
                           t, &type, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
                       return status_text(status) + " " + list(v, 8);
                     }});
  add("GetTensorNdDescriptor(requested 2 of 4)", [] {
    auto t = new_tensor();
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5);
    cudnnDataType_t type;
    int rank = 0, dims[2], strides[2];
    return cudnnGetTensorNdDescriptor(t, 2, &type, &rank, dims, strides);
  });
  for (const int type : {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE, CUDNN_DATA_HALF, CUDNN_DATA_BFLOAT16,
                         CUDNN_DATA_INT8, CUDNN_DATA_UINT8, CUDNN_DATA_INT32, CUDNN_DATA_INT64,
                         CUDNN_DATA_FP8_E4M3, CUDNN_DATA_BOOLEAN}) {
    add("SetTensor4dDescriptor(type " + std::to_string(type) + ")", [type] {
      return cudnnSetTensor4dDescriptor(new_tensor(), CUDNN_TENSOR_NCHW, cudnnDataType_t(type), 2,
                                        3, 4, 5);
    });
    add("SetFilter4dDescriptor(type " + std::to_string(type) + ")", [type] {
      return cudnnSetFilter4dDescriptor(new_filter(), cudnnDataType_t(type), CUDNN_TENSOR_NCHW, 2,
                                        3, 4, 5);
    });
  }
  add("SetFilter4dDescriptor(null desc)", [] {
    return cudnnSetFilter4dDescriptor(nullptr, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 1, 1);
  });
  add("SetFilterNdDescriptor(null dims)", [] {
    return cudnnSetFilterNdDescriptor(new_filter(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4,
                                      nullptr);
  });
  add("SetConvolution2dDescriptor(null desc)", [] {
    return cudnnSetConvolution2dDescriptor(nullptr, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                           CUDNN_DATA_FLOAT);
  });
  add("SetConvolutionNdDescriptor(null pad)", [] {
    const int one[2] = {1, 1};
    return cudnnSetConvolutionNdDescriptor(new_convolution(), 2, nullptr, one, one,
                                           CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  });
  for (const int requested : {0, 1, 2, 3, 6, 7})
    calls.push_back({"GetConvolutionNdDescriptor(2-d, requested " + std::to_string(requested) + ")",
                     [requested] {
                       auto c = new_convolution();
                       cudnnSetConvolution2dDescriptor(c, 1, 2, 3, 4, 5, 6, CUDNN_CROSS_CORRELATION,
                                                       CUDNN_DATA_FLOAT);
                       int length = -1, v[3][8] = {};
                       cudnnConvolutionMode_t mode{};
                       cudnnDataType_t type{};
                       const auto status = cudnnGetConvolutionNdDescriptor(
                           c, requested, &length, v[0], v[1], v[2], &mode, &type);
                       return status_text(status) + " length=" + std::to_string(length) + " " +
                              list(v[0], 8) + " " + list(v[1], 8) + " " + list(v[2], 8);
                     }});
  for (const int length : {1, 3})
    calls.push_back({"GetConvolution2dDescriptor(" + std::to_string(length) + "-d)", [length] {
                       auto c = new_convolution();
                       const int one[3] = {1, 1, 1}, two[3] = {2, 2, 2};
                       cudnnSetConvolutionNdDescriptor(c, length, one, two, one,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
                       int v[6] = {};
                       cudnnConvolutionMode_t mode{};
                       cudnnDataType_t type{};
                       const auto status = cudnnGetConvolution2dDescriptor(
                           c, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &mode, &type);
                       return status_text(status) + " " + list(v, 6);
                     }});
  calls.push_back({"GetFilter4dDescriptor(3-d)", [] {
                     auto f = new_filter();
                     const int dims[3] = {2, 3, 4};
                     cudnnSetFilterNdDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 3, dims);
                     cudnnDataType_t type{};
                     cudnnTensorFormat_t format{};
                     int v[4] = {};
                     const auto status =
                         cudnnGetFilter4dDescriptor(f, &type, &format, &v[0], &v[1], &v[2], &v[3]);
                     return status_text(status) + " " + list(v, 4);
                   }});
  add("SetConvolutionGroupCount(null desc)",
      [] { return cudnnSetConvolutionGroupCount(nullptr, 2); });
  add("GetConvolutionGroupCount(null count)",
      [] { return cudnnGetConvolutionGroupCount(new_convolution(), nullptr); });
  add("SetConvolutionMathType(null desc)",
      [] { return cudnnSetConvolutionMathType(nullptr, CUDNN_DEFAULT_MATH); });
  add("GetConvolution2dForwardOutputDim(unset descriptors)", [] {
    int n, c, h, w;
    return cudnnGetConvolution2dForwardOutputDim(new_convolution(), new_tensor(), new_filter(), &n,
                                                 &c, &h, &w);
  });
  add("GetConvolution2dForwardOutputDim(null n)", [] {
    auto t = new_tensor();
    auto f = new_filter();
    auto c = new_convolution();
    cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 4, 4);
    cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, 3, 3);
    cudnnSetConvolution2dDescriptor(c, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    int ch, h, w;
    return cudnnGetConvolution2dForwardOutputDim(c, t, f, nullptr, &ch, &h, &w);
  });
  add("CreateActivationDescriptor(null)", [] { return cudnnCreateActivationDescriptor(nullptr); });
  add("SetActivationDescriptor(null desc)", [] {
    return cudnnSetActivationDescriptor(nullptr, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0);
  });
  return calls;
}

}  // namespace ucudnn::fakecuda::probe
