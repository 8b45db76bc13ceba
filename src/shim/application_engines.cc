#include "shim/application_engines.h"

#include <algorithm>

namespace ucudnn::shim {

bool ApplicationEngines::add(const std::string& kernel,
                             const cudnn::EngineConfiguration& configuration) {
  std::lock_guard lock(mutex_);
  auto& known = engines_[kernel];
  if (known.size() >= kPerKernel || std::any_of(known.begin(), known.end(), [&](const auto& c) {
        return c.name == configuration.name;
      }))
    return false;
  known.push_back(configuration);
  return true;
}

std::vector<cudnn::EngineConfiguration> ApplicationEngines::of(const std::string& kernel) const {
  std::lock_guard lock(mutex_);
  const auto* known = engines_.find(kernel);
  return known ? *known : std::vector<cudnn::EngineConfiguration>{};
}

}  // namespace ucudnn::shim
