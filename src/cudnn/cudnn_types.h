#pragma once
// cuDNN's enums and the planner's, both ways. nullopt: a value the planner has no name for.
#include <cudnn.h>

#include <optional>

#include "core/convolution_problem.h"

namespace ucudnn::cudnn {

std::optional<DataType> to_core(cudnnDataType_t type);
cudnnDataType_t to_cudnn(DataType type);
std::optional<MathType> to_core(cudnnMathType_t type);
cudnnMathType_t to_cudnn(MathType type);
ConvolutionMode to_core(cudnnConvolutionMode_t mode);
cudnnConvolutionMode_t to_cudnn(ConvolutionMode mode);
ReorderType to_core(cudnnReorderType_t reorder);
cudnnReorderType_t to_cudnn(ReorderType reorder);

}  // namespace ucudnn::cudnn
