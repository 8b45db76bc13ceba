#pragma once
// The engine configurations the application's own graph-API execution plans run, per kernel
// (its KernelKey text, whose math type the engine's notes set): candidates beside those cuDNN's
// heuristics offer, which need not include them (an application may build an engine by its
// index, or reuse one it stored), so that ucudnn's undivided baseline includes exactly what the
// application would have run. A few per kernel (a framework that autotunes finalizes several);
// as many kernels as a handle keeps plans for. Thread-safe: Finalize may come on any thread.
#include <mutex>
#include <string>
#include <vector>

#include "core/lru_map.h"
#include "cudnn/engine_configurations.h"
#include "shim/handle_state.h"

namespace ucudnn::shim {

class ApplicationEngines {
 public:
  static constexpr std::size_t kPerKernel = 8;

  // True when `configuration` is new for the kernel (a later one beyond kPerKernel is not kept).
  bool add(const std::string& kernel, const cudnn::EngineConfiguration& configuration);
  std::vector<cudnn::EngineConfiguration> of(const std::string& kernel) const;

 private:
  mutable std::mutex mutex_;
  mutable LruMap<std::string, std::vector<cudnn::EngineConfiguration>> engines_{kKernelsPerHandle};
};

}  // namespace ucudnn::shim
