#include "cudnn/finalized_plans.h"

namespace ucudnn::cudnn {

FinalizedPlans::Key FinalizedPlans::key(const KernelKey& shape, const EngineName& name,
                                        double alpha, double beta) {
  return {shape.to_string(), name.to_string(), alpha, beta};
}

void FinalizedPlans::keep(const KernelKey& shape, const EngineName& name, double alpha, double beta,
                          std::shared_ptr<const EnginePlan> plan) {
  if (plan) plans_[key(shape, name, alpha, beta)] = std::move(plan);
}

void FinalizedPlans::keep_measured(const KernelKey& shape, const EngineName& name, double time_ms,
                                   std::uint64_t workspace_bytes, std::unique_ptr<EnginePlan> plan,
                                   std::unique_ptr<EnginePlan> accumulating) {
  if (!plan) return;
  // `a` beats `b`: no slower, no more workspace, and better in one of them.
  const auto beats = [](double a_ms, std::uint64_t a_bytes, double b_ms, std::uint64_t b_bytes) {
    return a_ms <= b_ms && a_bytes <= b_bytes && (a_ms < b_ms || a_bytes < b_bytes);
  };
  auto& front = fronts_[shape.to_string()];
  for (const Measured& m : front)
    if (beats(m.time_ms, m.workspace_bytes, time_ms, workspace_bytes)) return;
  std::erase_if(front, [&](const Measured& m) {
    if (!beats(time_ms, workspace_bytes, m.time_ms, m.workspace_bytes) && m.name != name)
      return false;
    plans_.erase(key(shape, m.name, 1, 0));
    plans_.erase(key(shape, m.name, 1, 1));
    return true;
  });
  front.push_back({name, time_ms, workspace_bytes});
  keep(shape, name, 1, 0, std::move(plan));
  keep(shape, name, 1, 1, std::move(accumulating));
}

const EnginePlan* FinalizedPlans::find(const KernelKey& shape, const EngineName& name, double alpha,
                                       double beta) const {
  const auto found = plans_.find(key(shape, name, alpha, beta));
  return found == plans_.end() ? nullptr : found->second.get();
}

std::shared_ptr<const EnginePlan> FinalizedPlans::share(const KernelKey& shape,
                                                        const EngineName& name, double alpha,
                                                        double beta) const {
  const auto found = plans_.find(key(shape, name, alpha, beta));
  return found == plans_.end() ? nullptr : found->second;
}

std::shared_ptr<const EnginePlan> kept_or_finalized(FinalizedPlans* kept, cudnnHandle_t handle,
                                                    const KernelKey& shape, const EngineName& name,
                                                    double alpha, double beta) {
  if (kept)
    if (auto plan = kept->share(shape, name, alpha, beta)) return plan;
  std::shared_ptr<const EnginePlan> plan =
      std::make_shared<EnginePlan>(handle, shape.operation, shape.problem, name, alpha, beta);
  if (kept) kept->keep(shape, name, alpha, beta, plan);
  return plan;
}

}  // namespace ucudnn::cudnn
