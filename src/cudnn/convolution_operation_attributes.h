#pragma once
// The graph API's three convolution operations, one row each: the descriptor type and the
// attribute names of x, w, y, the convolution and the scaling factors, in the legacy API's
// roles (x = x or dx, w = w or dw, y = y or dy). Read where ucudnn builds graphs of its own
// (convolution_graph) and where the shim reads the application's (shim/backend).
#include <cudnn.h>

#include <array>
#include <optional>

#include "core/kernel_key.h"

namespace ucudnn::cudnn {

struct ConvolutionOperationAttributes {
  Operation operation;
  cudnnBackendDescriptorType_t type;
  cudnnBackendAttributeName_t x, w, y, convolution, alpha, beta;
};

inline constexpr std::array<ConvolutionOperationAttributes, 3> kConvolutionOperations = {{
    {Operation::kForward, CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA},
    {Operation::kBackwardData, CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA},
    {Operation::kBackwardFilter, CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
     CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA},
}};

inline const ConvolutionOperationAttributes& attributes_of(Operation operation) {
  for (const auto& row : kConvolutionOperations)
    if (row.operation == operation) return row;
  return kConvolutionOperations[0];
}

// nullopt for a descriptor type that is no convolution operation.
inline std::optional<ConvolutionOperationAttributes> attributes_of(
    cudnnBackendDescriptorType_t type) {
  for (const auto& row : kConvolutionOperations)
    if (row.type == type) return row;
  return std::nullopt;
}

}  // namespace ucudnn::cudnn
