#pragma once
// Reads the caller's cuDNN descriptors into the planner's problem, every field: N-d dims
// and strides, filter layout (as strides), padding, stride, dilation, groups, mode, data,
// compute and math type, reorder type. Errors are the status cuDNN would return, with a
// message naming the field. In two steps, so that a call seen before costs no allocation: the
// descriptors' raw contents (a DescriptorSnapshot, compared byte for byte with an earlier one),
// then the problem made from them.
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

// What cuDNN's getters answer for a call's four descriptors, unset parts zero; trivially
// copyable and comparable with memcmp (read_snapshot zeroes it first).
struct DescriptorSnapshot {
  static constexpr int kMaxDims = CUDNN_DIM_MAX;
  struct Tensor {
    cudnnStatus_t status;
    cudnnDataType_t type;
    int rank;
    int dims[kMaxDims], strides[kMaxDims];
  };
  Tensor x, y;
  cudnnStatus_t filter_status;
  cudnnDataType_t filter_type;
  cudnnTensorFormat_t filter_format;
  int filter_rank;
  int filter_dims[kMaxDims];
  cudnnStatus_t convolution_status, details_status;
  int spatial;
  int padding[kMaxDims], stride[kMaxDims], dilation[kMaxDims];
  cudnnConvolutionMode_t mode;
  cudnnDataType_t compute_type;
  int groups;
  cudnnMathType_t math;
  cudnnReorderType_t reorder;
  bool null_descriptor;  // one of the four is null (the others are read)
};

// Calls cuDNN's getters only (no allocation). False when the table lacks them.
bool read_snapshot(const CudnnApi& api, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                   cudnnConvolutionDescriptor_t convolution, cudnnTensorDescriptor_t y,
                   DescriptorSnapshot& snapshot);

bool same_snapshot(const DescriptorSnapshot& a, const DescriptorSnapshot& b);

// The problem the snapshot describes, or the status cuDNN would give the call.
DescriptorStatus problem_from_snapshot(const DescriptorSnapshot& snapshot,
                                       cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
                                       cudnnConvolutionDescriptor_t convolution,
                                       cudnnTensorDescriptor_t y, ConvolutionProblem& problem);

// Both steps. x is the input (dx for BackwardData), y the output (dy for the backward
// operations).
DescriptorStatus problem_from_descriptors(const CudnnApi& api, cudnnTensorDescriptor_t x,
                                          cudnnFilterDescriptor_t w,
                                          cudnnConvolutionDescriptor_t convolution,
                                          cudnnTensorDescriptor_t y, ConvolutionProblem& problem);

}  // namespace ucudnn::cudnn
