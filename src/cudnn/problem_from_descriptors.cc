#include "cudnn/problem_from_descriptors.h"

#include <cstring>

#include "cudnn/cudnn_types.h"
#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

namespace {

constexpr int kMaxDims = DescriptorSnapshot::kMaxDims;

DescriptorStatus bad(std::string message) {
  return {CUDNN_STATUS_BAD_PARAM, std::move(message), false};
}
DescriptorStatus unsupported(std::string message) {
  return {CUDNN_STATUS_NOT_SUPPORTED, std::move(message), true};
}

void read_tensor(const CudnnApi& api, cudnnTensorDescriptor_t descriptor,
                 DescriptorSnapshot::Tensor& t) {
  t.status =
      api.cudnnGetTensorNdDescriptor(descriptor, kMaxDims, &t.type, &t.rank, t.dims, t.strides);
  // cuDNN writes only `rank` entries: the rest stay as zeroed, so snapshots compare exactly.
  if (t.status != CUDNN_STATUS_SUCCESS || t.rank < 0 || t.rank > kMaxDims) t.rank = 0;
}

DescriptorStatus tensor_status(const DescriptorSnapshot::Tensor& t, const char* name,
                               TensorShape& shape) {
  if (t.status != CUDNN_STATUS_SUCCESS)
    return {t.status, std::string("cannot read the ") + name + " descriptor"};
  shape.dims.assign(t.dims, t.dims + t.rank);
  shape.strides.assign(t.strides, t.strides + t.rank);
  return {};
}

}  // namespace

bool read_snapshot(const CudnnApi& api, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                   cudnnConvolutionDescriptor_t convolution, cudnnTensorDescriptor_t y,
                   DescriptorSnapshot& s) {
  std::memset(&s, 0, sizeof s);
  if (!api.complete()) return false;
  s.null_descriptor = !x || !w || !convolution || !y;
  // Every planned legacy call reads its descriptors: one scope around the getters reads the clock
  // twice where a scope per getter (each table call's own) would read it for each, at the cost of
  // the few copies between them counting as cuDNN's.
  const RealCallScope getters;
  if (x) read_tensor(api, x, s.x);
  if (y) read_tensor(api, y, s.y);
  if (w) {
    s.filter_status = api.cudnnGetFilterNdDescriptor(w, kMaxDims, &s.filter_type, &s.filter_format,
                                                     &s.filter_rank, s.filter_dims);
    if (s.filter_status != CUDNN_STATUS_SUCCESS || s.filter_rank < 0 || s.filter_rank > kMaxDims)
      s.filter_rank = 0;
  }
  if (!convolution) return true;
  s.convolution_status =
      api.cudnnGetConvolutionNdDescriptor(convolution, kMaxDims - 2, &s.spatial, s.padding,
                                          s.stride, s.dilation, &s.mode, &s.compute_type);
  if (s.convolution_status != CUDNN_STATUS_SUCCESS || s.spatial < 0 || s.spatial > kMaxDims - 2)
    s.spatial = 0;
  s.groups = 1;
  s.details_status = api.cudnnGetConvolutionGroupCount(convolution, &s.groups);
  if (s.details_status == CUDNN_STATUS_SUCCESS)
    s.details_status = api.cudnnGetConvolutionMathType(convolution, &s.math);
  if (s.details_status == CUDNN_STATUS_SUCCESS)
    s.details_status = api.cudnnGetConvolutionReorderType(convolution, &s.reorder);
  return true;
}

bool same_snapshot(const DescriptorSnapshot& a, const DescriptorSnapshot& b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

DescriptorStatus problem_from_snapshot(const DescriptorSnapshot& s, cudnnTensorDescriptor_t x,
                                       cudnnFilterDescriptor_t w,
                                       cudnnConvolutionDescriptor_t convolution,
                                       cudnnTensorDescriptor_t y, ConvolutionProblem& problem) {
  // In the order the checks were always made: the first problem found is the one reported.
  if (!x) return bad("x descriptor is null");
  if (auto status = tensor_status(s.x, "x", problem.x); !status.ok()) return status;
  if (!y) return bad("y descriptor is null");
  if (auto status = tensor_status(s.y, "y", problem.y); !status.ok()) return status;

  if (!w) return bad("filter descriptor is null");
  if (s.filter_status != CUDNN_STATUS_SUCCESS)
    return {s.filter_status, "cannot read the filter descriptor"};
  if (s.filter_format != CUDNN_TENSOR_NCHW && s.filter_format != CUDNN_TENSOR_NHWC)
    return unsupported("filter format " + std::to_string(s.filter_format) +
                       " (vectorized) is passed through");
  std::vector<std::int64_t> filter(s.filter_dims, s.filter_dims + s.filter_rank);
  problem.w = s.filter_format == CUDNN_TENSOR_NHWC ? TensorShape::packed_channels_last(filter)
                                                   : TensorShape::packed(filter);

  if (!convolution) return bad("convolution descriptor is null");
  if (s.convolution_status != CUDNN_STATUS_SUCCESS)
    return {s.convolution_status, "cannot read the convolution descriptor"};
  if (s.details_status != CUDNN_STATUS_SUCCESS)
    return bad("cannot read the convolution descriptor's group count, math type or reorder type");
  problem.padding.assign(s.padding, s.padding + s.spatial);
  problem.stride.assign(s.stride, s.stride + s.spatial);
  problem.dilation.assign(s.dilation, s.dilation + s.spatial);
  problem.groups = s.groups;
  problem.mode = to_core(s.mode);
  problem.reorder = to_core(s.reorder);

  const auto data = to_core(s.x.type);
  const auto compute = to_core(s.compute_type);
  const auto math_type = to_core(s.math);
  if (!data || !compute || !math_type)
    return unsupported("data, compute or math type unknown to ucudnn");
  if (s.y.type != s.x.type || s.filter_type != s.x.type)
    return unsupported("x, w and y data types differ; ucudnn plans only uniform data types");
  problem.data_type = *data;
  problem.compute_type = *compute;
  problem.math_type = *math_type;
  // Descriptors cuDNN accepted but ucudnn cannot plan (negative or zero strides, no spatial
  // dimension, shapes that do not match): cuDNN itself answers for them.
  if (auto error = problem.validation_error()) return unsupported(*error);
  return {};
}

DescriptorStatus problem_from_descriptors(const CudnnApi& api, cudnnTensorDescriptor_t x,
                                          cudnnFilterDescriptor_t w,
                                          cudnnConvolutionDescriptor_t convolution,
                                          cudnnTensorDescriptor_t y, ConvolutionProblem& problem) {
  if (!api.complete())
    return {CUDNN_STATUS_NOT_INITIALIZED, "cuDNN functions not found: " + api.missing};
  DescriptorSnapshot snapshot;
  read_snapshot(api, x, w, convolution, y, snapshot);
  return problem_from_snapshot(snapshot, x, w, convolution, y, problem);
}

}  // namespace ucudnn::cudnn
