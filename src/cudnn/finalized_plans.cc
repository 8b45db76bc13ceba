#include "cudnn/finalized_plans.h"

namespace ucudnn::cudnn {

FinalizedPlans::Key FinalizedPlans::key(const KernelKey& shape, const EngineName& name,
                                        double alpha, double beta) {
  return {shape.to_string(), name.to_string(), alpha, beta};
}

void FinalizedPlans::keep(const KernelKey& shape, const EngineName& name, double alpha, double beta,
                          std::unique_ptr<EnginePlan> plan) {
  if (plan) plans_[key(shape, name, alpha, beta)] = std::move(plan);
}

const EnginePlan* FinalizedPlans::find(const KernelKey& shape, const EngineName& name, double alpha,
                                       double beta) const {
  const auto found = plans_.find(key(shape, name, alpha, beta));
  return found == plans_.end() ? nullptr : found->second.get();
}

std::unique_ptr<EnginePlan> FinalizedPlans::take(const KernelKey& shape, const EngineName& name,
                                                 double alpha, double beta) {
  const auto found = plans_.find(key(shape, name, alpha, beta));
  if (found == plans_.end()) return nullptr;
  auto plan = std::move(found->second);
  plans_.erase(found);
  return plan;
}

std::unique_ptr<EnginePlan> kept_or_finalized(FinalizedPlans* kept, cudnnHandle_t handle,
                                              const KernelKey& shape, const EngineName& name,
                                              double alpha, double beta) {
  if (kept)
    if (auto plan = kept->take(shape, name, alpha, beta)) return plan;
  return std::make_unique<EnginePlan>(handle, shape.operation, shape.problem, name, alpha, beta);
}

}  // namespace ucudnn::cudnn
