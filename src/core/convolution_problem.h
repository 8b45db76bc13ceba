#pragma once
// The full description of one convolution, independent of cuDNN's types so that the
// planner can be built and tested without CUDA. Every field that can change which
// algorithms apply or how fast they run is here: it all goes into the kernel key.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ucudnn {

enum class DataType {
  kFloat,
  kDouble,
  kHalf,
  kBFloat16,
  kInt8,
  kInt32,
  kUInt8,
  kFp8E4M3,
  kFp8E5M2
};
enum class ConvolutionMode { kConvolution, kCrossCorrelation };
// What a kernel's numerics may use: cuDNN's legacy math types, and two that only a graph-API
// application's engine states (its numerical notes), where it allows one of the two conversions
// that TENSOR_OP_ALLOW_CONVERSION allows together. Appended: the values are part of stored keys.
enum class MathType {
  kDefault,
  kTensorOp,
  kTensorOpAllowConversion,  // inputs down-converted, reductions in reduced precision
  kFma,
  kTensorOpReducedPrecision,  // reductions in reduced precision, inputs as they are
  kTensorOpDownConvert,       // inputs down-converted, reductions in the compute type
};
enum class ReorderType { kDefault, kNoReorder };

std::string_view name_of(DataType value);
std::size_t element_size(DataType value);  // bytes
std::string_view name_of(ConvolutionMode value);
std::string_view name_of(MathType value);
// Whether `math` lets an engine convert its inputs to a narrower type (DOWN_CONVERT_INPUTS), and
// reduce in a narrower type than the compute type (REDUCED_PRECISION_REDUCTION).
bool allows_down_conversion(MathType math);
bool allows_reduced_precision_reduction(MathType math);
std::string_view name_of(ReorderType value);

// Dimensions and strides in elements, outermost (N) first, as cuDNN's Nd descriptors.
struct TensorShape {
  std::vector<std::int64_t> dims;
  std::vector<std::int64_t> strides;

  static TensorShape packed(std::vector<std::int64_t> dims);                // NCHW-style row-major
  static TensorShape packed_channels_last(std::vector<std::int64_t> dims);  // NHWC-style
  std::int64_t element_count() const;                                       // product of dims
  std::size_t span_elements() const;  // largest offset + 1: the elements a buffer must hold
  friend bool operator==(const TensorShape&, const TensorShape&) = default;
};

struct ConvolutionProblem {
  TensorShape x;  // input  [N, C, spatial...]
  TensorShape w;  // filter [K, C/groups, spatial...]; strides encode the filter layout
  TensorShape y;  // output [N, K, spatial...]
  std::vector<std::int64_t> padding;
  std::vector<std::int64_t> stride;
  std::vector<std::int64_t> dilation;
  std::int64_t groups = 1;
  ConvolutionMode mode = ConvolutionMode::kCrossCorrelation;
  DataType data_type = DataType::kFloat;
  DataType compute_type = DataType::kFloat;
  MathType math_type = MathType::kDefault;
  ReorderType reorder = ReorderType::kDefault;

  std::int64_t batch() const { return x.dims.empty() ? 0 : x.dims[0]; }
  int spatial_rank() const { return static_cast<int>(x.dims.size()) - 2; }

  // The same problem at another batch size: N changes, every stride is kept, so a
  // micro-batch is a pointer offset into the caller's tensors.
  ConvolutionProblem with_batch(std::int64_t micro_batch) const;

  // Empty when consistent; otherwise a message naming the field and value.
  std::optional<std::string> validation_error() const;

  friend bool operator==(const ConvolutionProblem&, const ConvolutionProblem&) = default;
};

// Output spatial size along one dimension (cuDNN's formula).
std::int64_t convolution_output_size(std::int64_t input, std::int64_t filter, std::int64_t padding,
                                     std::int64_t stride, std::int64_t dilation);

// A packed NCHW problem from the usual layer parameters (2-d, symmetric padding).
struct Conv2dShape {
  std::int64_t batch, in_channels, height, width, out_channels, kernel_h, kernel_w;
  std::int64_t pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::int64_t groups = 1;
};
ConvolutionProblem make_conv2d_problem(const Conv2dShape& shape, DataType type = DataType::kFloat);

}  // namespace ucudnn
