#include "core/convolution_problem.h"

#include "core/enum_names.h"

#include <sstream>

namespace ucudnn {

constexpr EnumName<DataType> kDataTypeNames[] = {
    {DataType::kFloat, "FLOAT"},      {DataType::kDouble, "DOUBLE"},
    {DataType::kHalf, "HALF"},        {DataType::kBFloat16, "BFLOAT16"},
    {DataType::kInt8, "INT8"},        {DataType::kInt32, "INT32"},
    {DataType::kUInt8, "UINT8"},      {DataType::kFp8E4M3, "FP8_E4M3"},
    {DataType::kFp8E5M2, "FP8_E5M2"},
};

std::string_view name_of(DataType value) {
  return name_in(kDataTypeNames, value);
}

std::string_view name_of(ConvolutionMode value) {
  return value == ConvolutionMode::kConvolution ? "CONVOLUTION" : "CROSS_CORRELATION";
}

constexpr EnumName<MathType> kMathTypeNames[] = {
    {MathType::kDefault, "DEFAULT"},
    {MathType::kTensorOp, "TENSOR_OP"},
    {MathType::kTensorOpAllowConversion, "TENSOR_OP_ALLOW_CONVERSION"},
    {MathType::kFma, "FMA"},
    {MathType::kTensorOpReducedPrecision, "TENSOR_OP_REDUCED_PRECISION_REDUCTION"},
    {MathType::kTensorOpDownConvert, "TENSOR_OP_DOWN_CONVERT"},
};

std::string_view name_of(MathType value) {
  return name_in(kMathTypeNames, value);
}

bool allows_down_conversion(MathType math) {
  return math == MathType::kTensorOpAllowConversion || math == MathType::kTensorOpDownConvert;
}

bool allows_reduced_precision_reduction(MathType math) {
  return math == MathType::kTensorOpAllowConversion || math == MathType::kTensorOpReducedPrecision;
}

std::string_view name_of(ReorderType value) {
  return value == ReorderType::kDefault ? "DEFAULT" : "NO_REORDER";
}

TensorShape TensorShape::packed(std::vector<std::int64_t> dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return TensorShape{std::move(dims), std::move(strides)};
}

TensorShape TensorShape::packed_channels_last(std::vector<std::int64_t> dims) {
  std::vector<std::int64_t> strides(dims.size(), 1);
  if (dims.size() < 3) return packed(std::move(dims));
  // Order from innermost: C, then the last spatial dim ... first spatial dim, then N.
  std::int64_t running = dims[1];
  for (std::size_t i = dims.size(); i-- > 2;) {
    strides[i] = running;
    running *= dims[i];
  }
  strides[1] = 1;
  strides[0] = running;
  return TensorShape{std::move(dims), std::move(strides)};
}

std::size_t TensorShape::span_elements() const {
  std::int64_t last = 0;
  for (std::size_t i = 0; i < dims.size(); ++i) last += (dims[i] - 1) * strides[i];
  return static_cast<std::size_t>(last + 1);
}

std::size_t element_size(DataType value) {
  switch (value) {
    case DataType::kDouble:
      return 8;
    case DataType::kFloat:
    case DataType::kInt32:
      return 4;
    case DataType::kHalf:
    case DataType::kBFloat16:
      return 2;
    default:
      return 1;
  }
}

std::int64_t TensorShape::element_count() const {
  std::int64_t count = 1;
  for (auto d : dims) count *= d;
  return count;
}

ConvolutionProblem ConvolutionProblem::with_batch(std::int64_t micro_batch) const {
  ConvolutionProblem result = *this;
  if (!result.x.dims.empty()) result.x.dims[0] = micro_batch;
  if (!result.y.dims.empty()) result.y.dims[0] = micro_batch;
  return result;
}

namespace {

std::string join(const std::vector<std::int64_t>& values) {
  std::ostringstream out;
  out << '[';
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
  out << ']';
  return out.str();
}

std::optional<std::string> shape_error(const char* name, const TensorShape& shape,
                                       std::size_t rank) {
  if (shape.dims.size() != rank)
    return std::string(name) + ".dims " + join(shape.dims) + " has rank " +
           std::to_string(shape.dims.size()) + ", expected " + std::to_string(rank);
  if (shape.strides.size() != rank)
    return std::string(name) + ".strides " + join(shape.strides) + " has rank " +
           std::to_string(shape.strides.size()) + ", expected " + std::to_string(rank);
  for (auto d : shape.dims)
    if (d <= 0) return std::string(name) + ".dims " + join(shape.dims) + " has a non-positive size";
  for (auto s : shape.strides)
    if (s <= 0)
      return std::string(name) + ".strides " + join(shape.strides) + " has a non-positive stride";
  return std::nullopt;
}

}  // namespace

std::int64_t convolution_output_size(std::int64_t input, std::int64_t filter, std::int64_t padding,
                                     std::int64_t stride, std::int64_t dilation) {
  const std::int64_t span = dilation * (filter - 1) + 1;
  return (input + 2 * padding - span) / stride + 1;
}

std::optional<std::string> ConvolutionProblem::validation_error() const {
  const std::size_t rank = x.dims.size();
  if (rank < 3 || rank > 8) return "x.dims " + join(x.dims) + " must have rank 3 to 8";
  for (auto [name, shape] : {std::pair{"x", &x}, std::pair{"w", &w}, std::pair{"y", &y}})
    if (auto error = shape_error(name, *shape, rank)) return error;
  const std::size_t spatial = rank - 2;
  for (auto [name, values] : {std::pair{"padding", &padding}, std::pair{"stride", &stride},
                              std::pair{"dilation", &dilation}}) {
    if (values->size() != spatial)
      return std::string(name) + " " + join(*values) + " must have " + std::to_string(spatial) +
             " entries";
  }
  for (auto p : padding)
    if (p < 0) return "padding " + join(padding) + " has a negative entry";
  for (auto s : stride)
    if (s <= 0) return "stride " + join(stride) + " has a non-positive entry";
  for (auto d : dilation)
    if (d <= 0) return "dilation " + join(dilation) + " has a non-positive entry";
  if (groups <= 0) return "groups " + std::to_string(groups) + " must be positive";
  if (x.dims[0] != y.dims[0])
    return "y.dims[0] " + std::to_string(y.dims[0]) + " differs from x.dims[0] " +
           std::to_string(x.dims[0]);
  if (x.dims[1] % groups != 0)
    return "x channels " + std::to_string(x.dims[1]) + " not divisible by groups " +
           std::to_string(groups);
  if (w.dims[1] * groups != x.dims[1])
    return "w.dims[1] " + std::to_string(w.dims[1]) + " times groups " + std::to_string(groups) +
           " differs from x channels " + std::to_string(x.dims[1]);
  if (w.dims[0] % groups != 0)
    return "w.dims[0] " + std::to_string(w.dims[0]) + " not divisible by groups " +
           std::to_string(groups);
  if (y.dims[1] != w.dims[0])
    return "y.dims[1] " + std::to_string(y.dims[1]) + " differs from w.dims[0] " +
           std::to_string(w.dims[0]);
  for (std::size_t i = 0; i < spatial; ++i) {
    const auto expected =
        convolution_output_size(x.dims[i + 2], w.dims[i + 2], padding[i], stride[i], dilation[i]);
    if (x.dims[i + 2] + 2 * padding[i] < dilation[i] * (w.dims[i + 2] - 1) + 1 || expected <= 0)
      return "filter dimension " + std::to_string(i) + " (" + std::to_string(w.dims[i + 2]) +
             ", dilation " + std::to_string(dilation[i]) + ") is larger than the padded input " +
             std::to_string(x.dims[i + 2] + 2 * padding[i]);
    if (y.dims[i + 2] != expected)
      return "y.dims " + join(y.dims) + ": spatial dimension " + std::to_string(i) + " is " +
             std::to_string(y.dims[i + 2]) + ", expected " + std::to_string(expected);
  }
  return std::nullopt;
}

ConvolutionProblem make_conv2d_problem(const Conv2dShape& s, DataType type) {
  ConvolutionProblem problem;
  const auto out_h =
      convolution_output_size(s.height, s.kernel_h, s.pad_h, s.stride_h, s.dilation_h);
  const auto out_w =
      convolution_output_size(s.width, s.kernel_w, s.pad_w, s.stride_w, s.dilation_w);
  problem.x = TensorShape::packed({s.batch, s.in_channels, s.height, s.width});
  problem.w =
      TensorShape::packed({s.out_channels, s.in_channels / s.groups, s.kernel_h, s.kernel_w});
  problem.y = TensorShape::packed({s.batch, s.out_channels, out_h, out_w});
  problem.padding = {s.pad_h, s.pad_w};
  problem.stride = {s.stride_h, s.stride_w};
  problem.dilation = {s.dilation_h, s.dilation_w};
  problem.groups = s.groups;
  problem.data_type = type;
  problem.compute_type = type;
  return problem;
}

}  // namespace ucudnn
