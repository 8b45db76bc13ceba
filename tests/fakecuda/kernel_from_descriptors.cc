#include "kernel_from_descriptors.h"

#include <algorithm>
#include <optional>

namespace ucudnn::fakecuda {

namespace {

KernelOrStatus failure(cudnnStatus_t status, std::string problem) {
  return {status, {}, std::move(problem)};
}

TensorShape shape(const std::vector<int>& dims, const std::vector<std::int64_t>& strides) {
  return TensorShape{{dims.begin(), dims.end()}, strides};
}

// Types the double does not run are refused after the key is made; they read as float here.
DataType core_type(cudnnDataType_t type) {
  switch (type) {
    case CUDNN_DATA_DOUBLE:
      return DataType::kDouble;
    case CUDNN_DATA_HALF:
      return DataType::kHalf;
    case CUDNN_DATA_BFLOAT16:
      return DataType::kBFloat16;
    default:
      return DataType::kFloat;
  }
}

MathType core_math(cudnnMathType_t type) {
  switch (type) {
    case CUDNN_TENSOR_OP_MATH:
      return MathType::kTensorOp;
    case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION:
      return MathType::kTensorOpAllowConversion;
    case CUDNN_FMA_MATH:
      return MathType::kFma;
    default:
      return MathType::kDefault;
  }
}

// The use-time rules, checked on the descriptors themselves rather than through the product's
// ConvolutionProblem, so that a mistake in the product's checks cannot hide in its double.
std::optional<std::string> shape_error(const cudnnTensorStruct* x, const cudnnFilterStruct* w,
                                       const cudnnConvolutionStruct* conv,
                                       const cudnnTensorStruct* y) {
  std::vector<int> expected;
  if (output_dims(conv, x, w, x->dims.size(), &expected) != CUDNN_STATUS_SUCCESS)
    return "x, w and the convolution do not convolve (channels, groups or a filter larger than "
           "the padded input)";
  if (w->dims[0] % conv->groups != 0) return "the filter count is not divisible by the groups";
  if (y->dims != expected) return "y is not the convolution's output size";
  return std::nullopt;
}

}  // namespace

KernelOrStatus kernel_from_descriptors(Operation operation, const cudnnTensorStruct* x,
                                       const cudnnFilterStruct* w,
                                       const cudnnConvolutionStruct* conv,
                                       const cudnnTensorStruct* y) {
  if (!alive(x) || !alive(w) || !alive(conv) || !alive(y))
    return failure(CUDNN_STATUS_BAD_PARAM, "a descriptor is null, destroyed or of another kind");
  if (!x->set || !w->set || !conv->set || !y->set)
    return failure(CUDNN_STATUS_BAD_PARAM, "a descriptor was created but never set");
  if (x->data_type != y->data_type || x->data_type != w->data_type)
    return failure(CUDNN_STATUS_BAD_PARAM, "tensor and filter data types differ");
  const std::size_t rank = x->dims.size();
  if (y->dims.size() != rank || w->dims.size() != rank || conv->padding.size() + 2 != rank)
    return failure(CUDNN_STATUS_BAD_PARAM, "tensor, filter and convolution ranks differ");
  if (rank < 3) return failure(CUDNN_STATUS_BAD_PARAM, "a convolution needs a spatial dimension");
  if (auto error = shape_error(x, w, conv, y)) return failure(CUDNN_STATUS_BAD_PARAM, *error);

  KernelKey key;
  key.operation = operation;
  ConvolutionProblem& p = key.problem;
  p.x = shape(x->dims, {x->strides.begin(), x->strides.end()});
  p.y = shape(y->dims, {y->strides.begin(), y->strides.end()});
  p.w = shape(w->dims, packed_strides(w->dims, w->format));
  p.padding.assign(conv->padding.begin(), conv->padding.end());
  p.stride.assign(conv->stride.begin(), conv->stride.end());
  p.dilation.assign(conv->dilation.begin(), conv->dilation.end());
  p.groups = conv->groups;
  p.mode = conv->mode == CUDNN_CONVOLUTION ? ConvolutionMode::kConvolution
                                           : ConvolutionMode::kCrossCorrelation;
  p.data_type = core_type(x->data_type);
  p.compute_type = core_type(conv->compute_type);
  p.math_type = core_math(conv->math_type);
  p.reorder = conv->reorder == CUDNN_NO_REORDER ? ReorderType::kNoReorder : ReorderType::kDefault;
  // Set accepts negative strides and zero ones on size-1 dimensions; the double runs neither
  // (and checked the shapes first: wrong arguments are BAD_PARAM before NOT_SUPPORTED).
  const auto positive = [](const TensorShape& t) {
    return std::all_of(t.strides.begin(), t.strides.end(), [](std::int64_t s) { return s > 0; });
  };
  if (!positive(p.x) || !positive(p.y))
    return failure(CUDNN_STATUS_NOT_SUPPORTED, "the double runs positive strides only");

  // cuDNN's configurations: float and double compute in their own type, half in half or
  // float (TRUE_HALF / PSEUDO_HALF), bfloat16 in float (PSEUDO_BFLOAT16).
  switch (x->data_type) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
      if (conv->compute_type != x->data_type)
        return failure(CUDNN_STATUS_NOT_SUPPORTED,
                       "the compute type must be the data type for float and double data");
      break;
    case CUDNN_DATA_HALF:
      if (conv->compute_type != CUDNN_DATA_HALF && conv->compute_type != CUDNN_DATA_FLOAT)
        return failure(CUDNN_STATUS_NOT_SUPPORTED, "half data computes in half or float");
      break;
    case CUDNN_DATA_BFLOAT16:
      if (conv->compute_type != CUDNN_DATA_FLOAT)
        return failure(CUDNN_STATUS_NOT_SUPPORTED, "bfloat16 data computes in float");
      break;
    default:
      return failure(CUDNN_STATUS_NOT_SUPPORTED,
                     "the double runs float, double, half and bfloat16 data only");
  }
  if (rank != 4)
    return failure(CUDNN_STATUS_NOT_SUPPORTED, "the double runs 2-d convolutions (4-d tensors)");
  return {CUDNN_STATUS_SUCCESS, std::move(key), {}};
}

}  // namespace ucudnn::fakecuda
