#pragma once
// One convolution call's descriptors as ucudnn's KernelKey, checked as cuDNN checks them:
// the status the call must return when they do not describe a convolution the double runs.
#include <cudnn.h>

#include <string>

#include "core/kernel_key.h"
#include "descriptors.h"

namespace ucudnn::fakecuda {

struct KernelOrStatus {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  KernelKey kernel;     // valid when status is CUDNN_STATUS_SUCCESS
  std::string problem;  // otherwise why, for the error message
};

// x and y are the operation's input and output images whichever way data flows: for
// BackwardData x is dx and y is dy; for BackwardFilter w is dw. BAD_PARAM: a null, unset
// or destroyed descriptor, mixed data types, ranks that disagree, shapes that do not
// convolve (channels and groups, y not the output size). NOT_SUPPORTED: valid, but not a
// 2-d float or double convolution with a matching compute type.
KernelOrStatus kernel_from_descriptors(Operation operation, const cudnnTensorStruct* x,
                                       const cudnnFilterStruct* w,
                                       const cudnnConvolutionStruct* conv,
                                       const cudnnTensorStruct* y);

}  // namespace ucudnn::fakecuda
