#pragma once
// Owners of cuDNN descriptors built from the planner's shapes: tensor (dims and strides kept
// exactly), filter (NCHW or NHWC, from the filter's strides) and convolution (padding,
// stride, dilation, mode, compute type, groups, math type, reorder type). Destroyed through
// the resolved table, never by name.
#include <cudnn.h>

#include <memory>
#include <type_traits>

#include "core/convolution_problem.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

template <typename Pointer, auto CudnnApi::*destroy>
class Descriptor {
 public:
  Pointer get() const { return handle_.get(); }

 protected:
  Descriptor(const CudnnApi& api, Pointer descriptor) : handle_(descriptor, Destroy{&api}) {}

 private:
  struct Destroy {
    const CudnnApi* api;
    void operator()(Pointer d) const { (api->*destroy)(d); }
  };
  std::unique_ptr<std::remove_pointer_t<Pointer>, Destroy> handle_;
};

// Each constructor throws std::runtime_error naming the cuDNN call and status when the
// library refuses the description.
class TensorDescriptor
    : public Descriptor<cudnnTensorDescriptor_t, &CudnnApi::cudnnDestroyTensorDescriptor> {
 public:
  TensorDescriptor(const CudnnApi& api, const TensorShape& shape, DataType type);
};

class FilterDescriptor
    : public Descriptor<cudnnFilterDescriptor_t, &CudnnApi::cudnnDestroyFilterDescriptor> {
 public:
  FilterDescriptor(const CudnnApi& api, const TensorShape& shape, DataType type);
};

class ConvolutionDescriptor : public Descriptor<cudnnConvolutionDescriptor_t,
                                                &CudnnApi::cudnnDestroyConvolutionDescriptor> {
 public:
  ConvolutionDescriptor(const CudnnApi& api, const ConvolutionProblem& problem);
};

}  // namespace ucudnn::cudnn
