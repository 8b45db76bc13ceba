#pragma once
// Reads the caller's cuDNN descriptors into the planner's problem, every field: N-d dims
// and strides, filter layout (as strides), padding, stride, dilation, groups, mode, data,
// compute and math type, reorder type. Errors are the status cuDNN would return, with a
// message naming the field.
#include <cudnn.h>

#include <string>

#include "core/convolution_problem.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

struct DescriptorStatus {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  std::string message;
  // Valid for cuDNN but outside what ucudnn plans (mixed or unknown data types, vectorized
  // layouts): the caller passes the call through unchanged rather than failing it.
  bool unsupported = false;
  bool ok() const { return status == CUDNN_STATUS_SUCCESS; }
};

// x is the input (dx for BackwardData), y the output (dy for the backward operations).
DescriptorStatus problem_from_descriptors(const CudnnApi& api, cudnnTensorDescriptor_t x,
                                          cudnnFilterDescriptor_t w,
                                          cudnnConvolutionDescriptor_t convolution,
                                          cudnnTensorDescriptor_t y, ConvolutionProblem& problem);

}  // namespace ucudnn::cudnn
