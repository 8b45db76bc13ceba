#include "cudnn/plan_executor.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudnn/algorithms.h"
#include "cudnn/scaling.h"

namespace ucudnn::cudnn {

PlanExecutor::PlanExecutor(const CudnnApi& api, cudnnHandle_t handle, const KernelKey& kernel,
                           Configuration configuration)
    : api_(api), kernel_(kernel), configuration_(std::move(configuration)) {
  const auto& problem = kernel_.problem;
  // A share for the host runs only through the hybrid executor (shim/hybrid_executor.h):
  // here it would silently be left uncomputed.
  if (configuration_.offload)
    throw std::invalid_argument("the plan gives the CPU a share: it needs the hybrid executor");
  if (configuration_.batch() != problem.batch())
    throw std::invalid_argument("the plan covers " + std::to_string(configuration_.batch()) +
                                " images of a batch of " + std::to_string(problem.batch()));
  for (const auto& m : configuration_.micro) {
    if (m.batch <= 0) throw std::invalid_argument("a micro-batch of " + std::to_string(m.batch));
    const auto algorithm = algorithm_value(kernel_.operation, m.algorithm);
    if (m.backend != "cudnn" || !algorithm)
      throw std::invalid_argument("unknown cuDNN algorithm '" + m.backend + ":" + m.algorithm +
                                  "'");
    auto& descriptors = descriptors_[m.batch];
    if (!descriptors) descriptors = std::make_unique<MicroBatchDescriptors>(api_, problem, m.batch);
    const MicroBatchDescriptors& d = *descriptors;
    std::size_t bytes = 0;
    if (workspace_size(api_, handle, kernel_.operation,
                       {d.x.get(), d.w.get(), d.convolution.get(), d.y.get()}, *algorithm,
                       &bytes) != CUDNN_STATUS_SUCCESS)
      throw std::invalid_argument("cuDNN refuses " + m.algorithm + " at " +
                                  std::to_string(m.batch) + " images");
    workspace_bytes_ = std::max<std::uint64_t>(workspace_bytes_, bytes);
    steps_.push_back({descriptors.get(), *algorithm, m.batch});
  }
  const std::size_t element = element_size(problem.data_type);
  x_batch_stride_bytes_ = static_cast<std::size_t>(problem.x.strides[0]) * element;
  y_batch_stride_bytes_ = static_cast<std::size_t>(problem.y.strides[0]) * element;
}

PlanExecutor::Result PlanExecutor::run(cudnnHandle_t handle, const void* alpha,
                                       const ConvolutionBuffers& buffers, void* workspace,
                                       std::size_t workspace_bytes, const void* beta) const {
  const void* one = scaling_one(kernel_.problem.data_type);
  std::size_t offset = 0;  // images before this micro-batch
  Result result;
  if (workspace_bytes < workspace_bytes_ || (!workspace && workspace_bytes_ > 0)) {
    result.status = CUDNN_STATUS_BAD_PARAM;
    return result;
  }
  for (const Step& step : steps_) {
    const MicroBatchDescriptors& d = *step.descriptors;
    ConvolutionBuffers slice = buffers;
    slice.x = static_cast<char*>(buffers.x) + offset * x_batch_stride_bytes_;
    slice.y = static_cast<char*>(buffers.y) + offset * y_batch_stride_bytes_;
    const bool accumulate = kernel_.operation == Operation::kBackwardFilter && offset > 0;
    result.status = convolve(api_, handle, kernel_.operation, step.algorithm, alpha,
                             {d.x.get(), d.w.get(), d.convolution.get(), d.y.get()}, slice,
                             workspace, workspace_bytes, accumulate ? one : beta);
    if (result.status != CUDNN_STATUS_SUCCESS) return result;
    result.output_touched = true;
    offset += static_cast<std::size_t>(step.batch);
  }
  return result;
}

}  // namespace ucudnn::cudnn
