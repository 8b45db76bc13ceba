#include "cudnn/problem_from_descriptors.h"

#include "cudnn/cudnn_types.h"

namespace ucudnn::cudnn {

namespace {

constexpr int kMaxDims = CUDNN_DIM_MAX;

DescriptorStatus bad(std::string message) {
  return {CUDNN_STATUS_BAD_PARAM, std::move(message), false};
}
DescriptorStatus unsupported(std::string message) {
  return {CUDNN_STATUS_NOT_SUPPORTED, std::move(message), true};
}

DescriptorStatus read_tensor(const CudnnApi& api, const char* name,
                             cudnnTensorDescriptor_t descriptor, TensorShape& shape,
                             cudnnDataType_t& type) {
  if (!descriptor) return bad(std::string(name) + " descriptor is null");
  int rank = 0, dims[kMaxDims], strides[kMaxDims];
  const auto status =
      api.cudnnGetTensorNdDescriptor(descriptor, kMaxDims, &type, &rank, dims, strides);
  if (status != CUDNN_STATUS_SUCCESS)
    return {status, std::string("cannot read the ") + name + " descriptor"};
  shape.dims.assign(dims, dims + rank);
  shape.strides.assign(strides, strides + rank);
  return {};
}

}  // namespace

DescriptorStatus problem_from_descriptors(const CudnnApi& api, cudnnTensorDescriptor_t x,
                                          cudnnFilterDescriptor_t w,
                                          cudnnConvolutionDescriptor_t convolution,
                                          cudnnTensorDescriptor_t y, ConvolutionProblem& problem) {
  if (!api.complete())
    return {CUDNN_STATUS_NOT_INITIALIZED, "cuDNN functions not found: " + api.missing};
  cudnnDataType_t x_type, y_type, w_type, compute_type;
  if (auto s = read_tensor(api, "x", x, problem.x, x_type); !s.ok()) return s;
  if (auto s = read_tensor(api, "y", y, problem.y, y_type); !s.ok()) return s;

  if (!w) return bad("filter descriptor is null");
  int rank = 0, dims[kMaxDims];
  cudnnTensorFormat_t format;
  if (auto status = api.cudnnGetFilterNdDescriptor(w, kMaxDims, &w_type, &format, &rank, dims);
      status != CUDNN_STATUS_SUCCESS)
    return {status, "cannot read the filter descriptor"};
  if (format != CUDNN_TENSOR_NCHW && format != CUDNN_TENSOR_NHWC)
    return unsupported("filter format " + std::to_string(format) +
                       " (vectorized) is passed through");
  std::vector<std::int64_t> filter(dims, dims + rank);
  problem.w = format == CUDNN_TENSOR_NHWC ? TensorShape::packed_channels_last(filter)
                                          : TensorShape::packed(filter);

  if (!convolution) return bad("convolution descriptor is null");
  int spatial = 0, pad[kMaxDims], stride[kMaxDims], dilation[kMaxDims], groups = 1;
  cudnnConvolutionMode_t mode;
  cudnnMathType_t math;
  cudnnReorderType_t reorder;
  if (auto status = api.cudnnGetConvolutionNdDescriptor(convolution, kMaxDims - 2, &spatial, pad,
                                                        stride, dilation, &mode, &compute_type);
      status != CUDNN_STATUS_SUCCESS)
    return {status, "cannot read the convolution descriptor"};
  if (api.cudnnGetConvolutionGroupCount(convolution, &groups) != CUDNN_STATUS_SUCCESS ||
      api.cudnnGetConvolutionMathType(convolution, &math) != CUDNN_STATUS_SUCCESS ||
      api.cudnnGetConvolutionReorderType(convolution, &reorder) != CUDNN_STATUS_SUCCESS)
    return bad("cannot read the convolution descriptor's group count, math type or reorder type");
  problem.padding.assign(pad, pad + spatial);
  problem.stride.assign(stride, stride + spatial);
  problem.dilation.assign(dilation, dilation + spatial);
  problem.groups = groups;
  problem.mode = to_core(mode);
  problem.reorder = to_core(reorder);

  const auto data = to_core(x_type);
  const auto compute = to_core(compute_type);
  const auto math_type = to_core(math);
  if (!data || !compute || !math_type)
    return unsupported("data, compute or math type unknown to ucudnn");
  if (y_type != x_type || w_type != x_type)
    return unsupported("x, w and y data types differ; ucudnn plans only uniform data types");
  problem.data_type = *data;
  problem.compute_type = *compute;
  problem.math_type = *math_type;
  // Descriptors cuDNN accepted but ucudnn cannot plan (negative or zero strides, no spatial
  // dimension, shapes that do not match): cuDNN itself answers for them.
  if (auto error = problem.validation_error()) return unsupported(*error);
  return {};
}

}  // namespace ucudnn::cudnn
