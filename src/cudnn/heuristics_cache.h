#pragma once
// cuDNN's heuristics' answer for each kernel of one device (the engine configurations of modes A
// and B and the fallback list, engine_configurations.h), asked once per process: planning asks for
// a kernel's candidates every time it measures or reads its measurements (each workspace limit,
// and the undivided baseline of the info log), and each query runs cuDNN's heuristics on the host.
// The answer depends on the device and the kernel alone. Thread-safe.
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/lru_map.h"
#include "cudnn/engine_configurations.h"

namespace ucudnn::cudnn {

class HeuristicsCache {
 public:
  // Per device, as many kernels as a handle keeps plans for.
  static constexpr std::size_t kKernels = 4096;

  // What cuDNN offered for `kernel` (its KernelKey text); nullopt when not known.
  std::optional<std::vector<EngineConfiguration>> find(const std::string& kernel) const;
  void put(const std::string& kernel, std::vector<EngineConfiguration> offered);

 private:
  mutable std::mutex mutex_;
  mutable LruMap<std::string, std::vector<EngineConfiguration>> offered_{kKernels};
};

}  // namespace ucudnn::cudnn
