#include "cudnn/cudnn_types.h"

#include <utility>

namespace ucudnn::cudnn {

namespace {
constexpr std::pair<cudnnDataType_t, DataType> kDataTypes[] = {
    {CUDNN_DATA_FLOAT, DataType::kFloat},      {CUDNN_DATA_DOUBLE, DataType::kDouble},
    {CUDNN_DATA_HALF, DataType::kHalf},        {CUDNN_DATA_BFLOAT16, DataType::kBFloat16},
    {CUDNN_DATA_INT8, DataType::kInt8},        {CUDNN_DATA_INT32, DataType::kInt32},
    {CUDNN_DATA_UINT8, DataType::kUInt8},      {CUDNN_DATA_FP8_E4M3, DataType::kFp8E4M3},
    {CUDNN_DATA_FP8_E5M2, DataType::kFp8E5M2},
};
constexpr std::pair<cudnnMathType_t, MathType> kMathTypes[] = {
    {CUDNN_DEFAULT_MATH, MathType::kDefault},
    {CUDNN_TENSOR_OP_MATH, MathType::kTensorOp},
    {CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, MathType::kTensorOpAllowConversion},
    {CUDNN_FMA_MATH, MathType::kFma},
    // Graph-API numerics, run by legacy descriptors as the nearest type that allows no more:
    // after the four above, so that cuDNN's types still read as they did.
    {CUDNN_TENSOR_OP_MATH, MathType::kTensorOpReducedPrecision},
    {CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, MathType::kTensorOpDownConvert},
};
}  // namespace

std::optional<DataType> to_core(cudnnDataType_t type) {
  for (auto [ours, core] : kDataTypes)
    if (ours == type) return core;
  return std::nullopt;
}

cudnnDataType_t to_cudnn(DataType type) {
  for (auto [ours, core] : kDataTypes)
    if (core == type) return ours;
  return CUDNN_DATA_FLOAT;
}

std::optional<MathType> to_core(cudnnMathType_t type) {
  for (auto [ours, core] : kMathTypes)
    if (ours == type) return core;
  return std::nullopt;
}

cudnnMathType_t to_cudnn(MathType type) {
  for (auto [ours, core] : kMathTypes)
    if (core == type) return ours;
  return CUDNN_DEFAULT_MATH;
}

ConvolutionMode to_core(cudnnConvolutionMode_t mode) {
  return mode == CUDNN_CONVOLUTION ? ConvolutionMode::kConvolution
                                   : ConvolutionMode::kCrossCorrelation;
}

cudnnConvolutionMode_t to_cudnn(ConvolutionMode mode) {
  return mode == ConvolutionMode::kConvolution ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION;
}

ReorderType to_core(cudnnReorderType_t reorder) {
  return reorder == CUDNN_NO_REORDER ? ReorderType::kNoReorder : ReorderType::kDefault;
}

cudnnReorderType_t to_cudnn(ReorderType reorder) {
  return reorder == ReorderType::kNoReorder ? CUDNN_NO_REORDER : CUDNN_DEFAULT_REORDER;
}

}  // namespace ucudnn::cudnn
