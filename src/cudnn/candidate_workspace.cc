#include "cudnn/candidate_workspace.h"

#include <memory>

#include "cudnn/algorithms.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/engine_plan.h"
#include "cudnn/micro_batch_descriptors.h"

namespace ucudnn::cudnn {

std::optional<std::uint64_t> candidate_workspace(const CudnnApi& api, cudnnHandle_t handle,
                                                 const KernelKey& kernel, const std::string& name,
                                                 FinalizedPlans* kept) {
  try {
    if (const auto engine = EngineName::parse(name)) {
      if (kept)
        if (const EnginePlan* plan = kept->find(kernel, *engine, 1, 0))
          return plan->workspace_bytes();
      auto plan =
          std::make_unique<EnginePlan>(handle, kernel.operation, kernel.problem, *engine, 1, 0);
      const std::uint64_t bytes = plan->workspace_bytes();
      if (kept) kept->keep(kernel, *engine, 1, 0, std::move(plan));
      return bytes;
    }
    const auto algorithm = algorithm_value(kernel.operation, name);
    if (!algorithm) return std::nullopt;
    const MicroBatchDescriptors d(api, kernel.problem, kernel.problem.batch());
    std::size_t bytes = 0;
    if (workspace_size(api, handle, kernel.operation,
                       {d.x.get(), d.w.get(), d.convolution.get(), d.y.get()}, *algorithm,
                       &bytes) != CUDNN_STATUS_SUCCESS)
      return std::nullopt;
    return bytes;
  } catch (const std::exception&) {
    return std::nullopt;  // a descriptor or configuration cuDNN refuses at this shape
  }
}

}  // namespace ucudnn::cudnn
