#include "cudnn/micro_batch_descriptors.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "cudnn/cudnn_types.h"

namespace ucudnn::cudnn {

namespace {
cudnnTensorDescriptor_t create(const CudnnApi& api, const TensorShape& shape, DataType type) {
  cudnnTensorDescriptor_t descriptor = nullptr;
  auto status = api.cudnnCreateTensorDescriptor(&descriptor);
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error("cudnnCreateTensorDescriptor failed: " +
                             std::string(api.cudnnGetErrorString(status)));
  const std::vector<int> dims(shape.dims.begin(), shape.dims.end());
  const std::vector<int> strides(shape.strides.begin(), shape.strides.end());
  status = api.cudnnSetTensorNdDescriptor(descriptor, to_cudnn(type), static_cast<int>(dims.size()),
                                          dims.data(), strides.data());
  if (status != CUDNN_STATUS_SUCCESS) {
    api.cudnnDestroyTensorDescriptor(descriptor);
    throw std::runtime_error("cudnnSetTensorNdDescriptor failed: " +
                             std::string(api.cudnnGetErrorString(status)));
  }
  return descriptor;
}
}  // namespace

TensorDescriptor::TensorDescriptor(const CudnnApi& api, const TensorShape& shape, DataType type)
    : handle_(create(api, shape, type), Destroy{&api}) {}

MicroBatchDescriptors::MicroBatchDescriptors(const CudnnApi& api, const ConvolutionProblem& problem,
                                             std::int64_t micro_batch)
    : x(api, problem.with_batch(micro_batch).x, problem.data_type),
      y(api, problem.with_batch(micro_batch).y, problem.data_type) {}

}  // namespace ucudnn::cudnn
