#pragma once
// Tensor descriptors for one micro-batch size: the caller's x and y with N = b and every
// stride kept, so that micro-batch i is a pointer offset into the caller's tensors. Built
// once per plan (not per call) and destroyed with it.
#include <cudnn.h>

#include <memory>
#include <type_traits>

#include "core/convolution_problem.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

class TensorDescriptor {
 public:
  // The descriptor of `shape` with data type `type`; throws std::runtime_error with cuDNN's
  // status when the library refuses it.
  TensorDescriptor(const CudnnApi& api, const TensorShape& shape, DataType type);
  cudnnTensorDescriptor_t get() const { return handle_.get(); }

 private:
  struct Destroy {
    const CudnnApi* api;
    void operator()(cudnnTensorDescriptor_t d) const { api->cudnnDestroyTensorDescriptor(d); }
  };
  std::unique_ptr<std::remove_pointer_t<cudnnTensorDescriptor_t>, Destroy> handle_;
};

struct MicroBatchDescriptors {
  TensorDescriptor x, y;
  MicroBatchDescriptors(const CudnnApi& api, const ConvolutionProblem& problem,
                        std::int64_t micro_batch);
};

}  // namespace ucudnn::cudnn
