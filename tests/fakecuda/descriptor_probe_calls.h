#pragma once
// What descriptor_probe prints for a call: the call as a name and a function that returns its
// status and what reads back, and the read-backs of tensor, filter and convolution descriptors,
// for the fixed calls (descriptor_probe_fixed_calls.cc) and the random ones (descriptor_probe.cc).
#include <cudnn.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace ucudnn::fakecuda::probe {

struct Call {
  std::string what;
  std::function<std::string()> run;  // the status and what reads back
};

inline std::string list(const int* values, int count) {
  std::ostringstream out;
  for (int i = 0; i < count; ++i) out << (i ? "," : "") << values[i];
  return out.str();
}

inline std::string status_text(cudnnStatus_t status) {
  return std::to_string(static_cast<int>(status));
}

inline std::string tensor_readback(cudnnTensorDescriptor_t t) {
  cudnnDataType_t type;
  int rank = 0, dims[8] = {}, strides[8] = {};
  size_t bytes = 0;
  const auto got = cudnnGetTensorNdDescriptor(t, 8, &type, &rank, dims, strides);
  std::string out = " get=" + status_text(got);
  out += " type=" + std::to_string(type) + " dims=" + list(dims, rank) +
         " strides=" + list(strides, rank);
  const auto sized = cudnnGetTensorSizeInBytes(t, &bytes);
  return out + " size=" + status_text(sized) + ":" + std::to_string(bytes);
}

inline std::string filter_readback(cudnnFilterDescriptor_t f) {
  cudnnDataType_t type;
  cudnnTensorFormat_t format;
  int rank = 0, dims[8] = {};
  size_t bytes = 0;
  const auto got = cudnnGetFilterNdDescriptor(f, 8, &type, &format, &rank, dims);
  std::string out = " get=" + status_text(got);
  out += " type=" + std::to_string(type) + " format=" + std::to_string(format) +
         " dims=" + list(dims, rank);
  const auto sized = cudnnGetFilterSizeInBytes(f, &bytes);
  return out + " size=" + status_text(sized) + ":" + std::to_string(bytes);
}

inline std::string convolution_readback(cudnnConvolutionDescriptor_t c) {
  // Requesting more than the descriptor has is NOT_SUPPORTED in cuDNN 9: ask for its length.
  int length = 0, pad[8] = {}, stride[8] = {}, dilation[8] = {}, groups = 0;
  cudnnConvolutionMode_t mode{};
  cudnnDataType_t type{};
  cudnnMathType_t math{};
  cudnnGetConvolutionNdDescriptor(c, 0, &length, pad, stride, dilation, &mode, &type);
  const auto got =
      cudnnGetConvolutionNdDescriptor(c, length, &length, pad, stride, dilation, &mode, &type);
  std::string out = " get=" + status_text(got);
  if (got == CUDNN_STATUS_SUCCESS)
    out += " pad=" + list(pad, length) + " stride=" + list(stride, length) +
           " dilation=" + list(dilation, length) + " mode=" + std::to_string(mode) +
           " type=" + std::to_string(type);
  const auto grouped = cudnnGetConvolutionGroupCount(c, &groups);
  out += " groups=" + status_text(grouped) + ":" + std::to_string(groups);
  const auto mathed = cudnnGetConvolutionMathType(c, &math);
  return out + " math=" + status_text(mathed) + ":" + std::to_string(math);
}

inline cudnnTensorDescriptor_t new_tensor() {
  cudnnTensorDescriptor_t t = nullptr;
  cudnnCreateTensorDescriptor(&t);
  return t;
}

inline cudnnFilterDescriptor_t new_filter() {
  cudnnFilterDescriptor_t f = nullptr;
  cudnnCreateFilterDescriptor(&f);
  return f;
}

inline cudnnConvolutionDescriptor_t new_convolution() {
  cudnnConvolutionDescriptor_t c = nullptr;
  cudnnCreateConvolutionDescriptor(&c);
  return c;
}

// Null and unset arguments, each function once.
std::vector<Call> fixed_calls();

}  // namespace ucudnn::fakecuda::probe
