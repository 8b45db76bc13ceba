#include "cudnn/descriptors.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "cudnn/cudnn_types.h"

namespace ucudnn::cudnn {

namespace {

void check(const CudnnApi& api, cudnnStatus_t status, const char* call) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string(call) + " failed: " + api.cudnnGetErrorString(status));
}

std::vector<int> to_int(const std::vector<std::int64_t>& values) {
  return {values.begin(), values.end()};
}

// Creates a descriptor and runs `set` on it; destroys it again if `set` throws.
template <typename Pointer, typename Create, typename Destroy, typename Set>
Pointer make(const CudnnApi& api, Create create, Destroy destroy, const char* create_name,
             Set set) {
  Pointer descriptor = nullptr;
  check(api, create(&descriptor), create_name);
  try {
    set(descriptor);
  } catch (...) {
    destroy(descriptor);
    throw;
  }
  return descriptor;
}

cudnnTensorDescriptor_t make_tensor(const CudnnApi& api, const TensorShape& shape, DataType type) {
  return make<cudnnTensorDescriptor_t>(
      api, api.cudnnCreateTensorDescriptor, api.cudnnDestroyTensorDescriptor,
      "cudnnCreateTensorDescriptor", [&](cudnnTensorDescriptor_t d) {
        const auto dims = to_int(shape.dims), strides = to_int(shape.strides);
        check(api,
              api.cudnnSetTensorNdDescriptor(d, to_cudnn(type), static_cast<int>(dims.size()),
                                             dims.data(), strides.data()),
              "cudnnSetTensorNdDescriptor");
      });
}

cudnnFilterDescriptor_t make_filter(const CudnnApi& api, const TensorShape& shape, DataType type) {
  return make<cudnnFilterDescriptor_t>(
      api, api.cudnnCreateFilterDescriptor, api.cudnnDestroyFilterDescriptor,
      "cudnnCreateFilterDescriptor", [&](cudnnFilterDescriptor_t d) {
        const bool channels_last = shape == TensorShape::packed_channels_last(shape.dims) &&
                                   shape != TensorShape::packed(shape.dims);
        // The legacy API knows packed KCRS and KRSC filters only: anything else would be
        // read as KCRS and computed wrong.
        if (!channels_last && shape != TensorShape::packed(shape.dims))
          throw std::runtime_error("a filter layout that is neither KCRS nor KRSC");
        const auto dims = to_int(shape.dims);
        check(api,
              api.cudnnSetFilterNdDescriptor(d, to_cudnn(type),
                                             channels_last ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                             static_cast<int>(dims.size()), dims.data()),
              "cudnnSetFilterNdDescriptor");
      });
}

cudnnConvolutionDescriptor_t make_convolution(const CudnnApi& api,
                                              const ConvolutionProblem& problem) {
  return make<cudnnConvolutionDescriptor_t>(
      api, api.cudnnCreateConvolutionDescriptor, api.cudnnDestroyConvolutionDescriptor,
      "cudnnCreateConvolutionDescriptor", [&](cudnnConvolutionDescriptor_t d) {
        const auto pad = to_int(problem.padding), stride = to_int(problem.stride),
                   dilation = to_int(problem.dilation);
        check(api,
              api.cudnnSetConvolutionNdDescriptor(
                  d, static_cast<int>(pad.size()), pad.data(), stride.data(), dilation.data(),
                  to_cudnn(problem.mode), to_cudnn(problem.compute_type)),
              "cudnnSetConvolutionNdDescriptor");
        check(api, api.cudnnSetConvolutionGroupCount(d, static_cast<int>(problem.groups)),
              "cudnnSetConvolutionGroupCount");
        check(api, api.cudnnSetConvolutionMathType(d, to_cudnn(problem.math_type)),
              "cudnnSetConvolutionMathType");
        check(api, api.cudnnSetConvolutionReorderType(d, to_cudnn(problem.reorder)),
              "cudnnSetConvolutionReorderType");
      });
}

}  // namespace

TensorDescriptor::TensorDescriptor(const CudnnApi& api, const TensorShape& shape, DataType type)
    : Descriptor(api, make_tensor(api, shape, type)) {}

FilterDescriptor::FilterDescriptor(const CudnnApi& api, const TensorShape& shape, DataType type)
    : Descriptor(api, make_filter(api, shape, type)) {}

ConvolutionDescriptor::ConvolutionDescriptor(const CudnnApi& api, const ConvolutionProblem& problem)
    : Descriptor(api, make_convolution(api, problem)) {}

}  // namespace ucudnn::cudnn
