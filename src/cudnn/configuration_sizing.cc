#include "cudnn/configuration_sizing.h"

#include <algorithm>
#include <utility>

#include "cudnn/measuring_account.h"

namespace ucudnn::cudnn {

void ConfigurationSizing::size(cudnnHandle_t handle, const KernelKey& kernel,
                               std::vector<EngineConfiguration>& offered) {
  const std::string key = kernel.to_string();
  if (kernel_ != key) {
    plans_.clear();
    kernel_ = key;
  }
  for (EngineConfiguration& c : offered) {
    if (c.workspace_bytes) continue;
    try {
      const PhaseTime building(MeasuringPhase::kPlans);
      auto plan =
          std::make_unique<EnginePlan>(handle, kernel.operation, kernel.problem, c.name, 1, 0);
      c.workspace_bytes = plan->workspace_bytes();
      plans_[c.name.to_string()] = std::move(plan);
    } catch (const EngineRefused&) {
      // Not a candidate at the full batch (measuring finds so too).
    }
  }
}

std::unique_ptr<EnginePlan> ConfigurationSizing::take(const KernelKey& kernel,
                                                      const EngineName& name) {
  if (kernel_ != kernel.to_string()) return nullptr;
  const auto found = plans_.find(name.to_string());
  if (found == plans_.end()) return nullptr;
  auto plan = std::move(found->second);
  plans_.erase(found);
  return plan;
}

void ConfigurationSizing::keep_only(const std::vector<std::string>& names) {
  for (auto it = plans_.begin(); it != plans_.end();)
    it = std::find(names.begin(), names.end(), it->first) == names.end() ? plans_.erase(it)
                                                                         : std::next(it);
}

}  // namespace ucudnn::cudnn
