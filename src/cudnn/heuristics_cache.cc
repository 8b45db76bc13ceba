#include "cudnn/heuristics_cache.h"

#include <utility>

namespace ucudnn::cudnn {

std::optional<std::vector<EngineConfiguration>> HeuristicsCache::find(
    const std::string& kernel) const {
  std::lock_guard lock(mutex_);
  if (const auto* offered = offered_.find(kernel)) return *offered;
  return std::nullopt;
}

void HeuristicsCache::put(const std::string& kernel, std::vector<EngineConfiguration> offered) {
  std::lock_guard lock(mutex_);
  offered_[kernel] = std::move(offered);
}

}  // namespace ucudnn::cudnn
