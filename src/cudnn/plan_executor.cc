#include "cudnn/plan_executor.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "cudnn/algorithms.h"
#include "cudnn/scaling.h"

namespace ucudnn::cudnn {

PlanExecutor::PlanExecutor(const CudnnApi& api, cudnnHandle_t handle, const KernelKey& kernel,
                           Configuration configuration, FinalizedPlans* kept)
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
    if (m.backend != "cudnn")
      throw std::invalid_argument("unknown cuDNN algorithm '" + m.backend + ":" + m.algorithm +
                                  "'");
    if (const auto engine = EngineName::parse(m.algorithm)) {
      auto& plans = engine_plans_[{m.batch, m.algorithm}];
      if (!plans.one_zero) {
        const KernelKey shape = kernel_.with_batch(m.batch);
        try {
          plans.name = *engine;
          plans.one_zero = kept_or_finalized(kept, handle, shape, *engine, 1, 0);
          // Only later micro-batches accumulate: a one-micro-batch plan makes its beta = 1 plan
          // on first use, if ever.
          if (later_micro_batches_accumulate(kernel_.operation) && configuration_.micro.size() > 1)
            plans.one_one = kept_or_finalized(kept, handle, shape, *engine, 1, 1);
        } catch (const EngineRefused& e) {
          throw std::invalid_argument(std::string(e.what()) + " at " + std::to_string(m.batch) +
                                      " images");
        }
      }
      workspace_bytes_ = std::max(workspace_bytes_, plans.one_zero->workspace_bytes());
      if (plans.one_one)
        workspace_bytes_ = std::max(workspace_bytes_, plans.one_one->workspace_bytes());
      deterministic_ = deterministic_ && !plans.one_zero->notes().nondeterministic;
      steps_.push_back({nullptr, 0, &plans, m.batch});
      continue;
    }
    const auto algorithm = algorithm_value(kernel_.operation, m.algorithm);
    if (!algorithm)
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
    deterministic_ = deterministic_ && is_deterministic(kernel_.operation, *algorithm);
    steps_.push_back({descriptors.get(), *algorithm, nullptr, m.batch});
  }
  const std::size_t element = element_size(problem.data_type);
  x_batch_stride_bytes_ = static_cast<std::size_t>(problem.x.strides[0]) * element;
  y_batch_stride_bytes_ = static_cast<std::size_t>(problem.y.strides[0]) * element;
}

const EnginePlan* PlanExecutor::engine_plan(const Step& step, cudnnHandle_t handle, double alpha,
                                            double beta) const {
  const EnginePlans& plans = *step.engine;
  if (alpha == 1 && beta == 0) return plans.one_zero.get();
  if (alpha == 1 && beta == 1 && plans.one_one) return plans.one_one.get();
  std::lock_guard lock(other_scalars_mutex_);
  // A plan cuDNN refused, or one that needs more than the others at this shape (it could overrun
  // the workspace), is kept as none: asked once, not at every call.
  const auto [slot, made] = other_scalars_.try_emplace({&plans, alpha, beta});
  if (made) {
    try {
      auto plan = std::make_unique<EnginePlan>(handle, kernel_.operation,
                                               kernel_.problem.with_batch(step.batch), plans.name,
                                               alpha, beta);
      if (plan->workspace_bytes() <= workspace_bytes_) slot->second = std::move(plan);
    } catch (const EngineRefused&) {
    }
  }
  return slot->second.get();
}

const void* PlanExecutor::step_beta(std::size_t offset, const void* beta) const {
  if (later_micro_batches_accumulate(kernel_.operation) && offset > 0)
    return scaling_one(kernel_.problem.data_type);
  return beta;
}

void PlanExecutor::prepare_scalars(cudnnHandle_t handle, const void* alpha,
                                   const void* beta) const {
  const DataType type = kernel_.problem.data_type;
  std::size_t offset = 0;
  for (const Step& step : steps_) {
    if (step.engine)
      engine_plan(step, handle, scaling_value(alpha, type),
                  scaling_value(step_beta(offset, beta), type));
    offset += static_cast<std::size_t>(step.batch);
  }
}

PlanExecutor::Result PlanExecutor::run(cudnnHandle_t handle, const void* alpha,
                                       const ConvolutionBuffers& buffers, void* workspace,
                                       std::size_t workspace_bytes, const void* beta) const {
  std::size_t offset = 0;  // images before this micro-batch
  Result result;
  if (workspace_bytes < workspace_bytes_ || (!workspace && workspace_bytes_ > 0)) {
    result.status = CUDNN_STATUS_BAD_PARAM;
    return result;
  }
  for (const Step& step : steps_) {
    ConvolutionBuffers slice = buffers;
    slice.x = static_cast<char*>(buffers.x) + offset * x_batch_stride_bytes_;
    slice.y = static_cast<char*>(buffers.y) + offset * y_batch_stride_bytes_;
    const void* beta_here = step_beta(offset, beta);
    if (step.engine) {
      const DataType type = kernel_.problem.data_type;
      const EnginePlan* plan =
          engine_plan(step, handle, scaling_value(alpha, type), scaling_value(beta_here, type));
      result.status = plan ? plan->execute(handle, slice, workspace) : CUDNN_STATUS_NOT_SUPPORTED;
    } else {
      const MicroBatchDescriptors& d = *step.descriptors;
      result.status = convolve(api_, handle, kernel_.operation, step.algorithm, alpha,
                               {d.x.get(), d.w.get(), d.convolution.get(), d.y.get()}, slice,
                               workspace, workspace_bytes, beta_here);
    }
    if (result.status != CUDNN_STATUS_SUCCESS) return result;
    result.output_touched = true;
    offset += static_cast<std::size_t>(step.batch);
  }
  return result;
}

}  // namespace ucudnn::cudnn
