#pragma once
// The descriptors of one micro-batch size: the caller's x and y with N = b and every
// stride kept (so micro-batch i is a pointer offset into the caller's tensors), and the
// filter and convolution rebuilt from the problem so that the plan owns everything it
// uses and the caller may destroy its descriptors at any time. Built once per plan.
#include "cudnn/descriptors.h"

namespace ucudnn::cudnn {

struct MicroBatchDescriptors {
  TensorDescriptor x, y;
  FilterDescriptor w;
  ConvolutionDescriptor convolution;
  MicroBatchDescriptors(const CudnnApi& api, const ConvolutionProblem& problem,
                        std::int64_t micro_batch);
};

}  // namespace ucudnn::cudnn
