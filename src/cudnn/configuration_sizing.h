#pragma once
// The workspace of engine configurations the heuristics offer without one: cuDNN before 9.2 has
// no CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE (PyTorch 2.4's wheels bring 9.1), and a configuration read
// as needing none would count as fitting any limit, take a place UCUDNN_BENCHMARK_LIMIT gives the
// first ones that fit, and leave out those that do. Its execution plan at the kernel's full
// batch (alpha = 1, beta = 0) says it exactly; that plan is kept for the measuring at the full
// batch, which would finalize it next (a finalize costs cuDNN a millisecond, a runtime-compiled
// engine's 100 ms and more), so a configuration is finalized there once, as where the heuristics
// say its workspace. One kernel's at a time, on one thread and handle.
#include <cudnn.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/engine_name.h"
#include "core/kernel_key.h"
#include "cudnn/engine_configurations.h"
#include "cudnn/engine_plan.h"

namespace ucudnn::cudnn {

class ConfigurationSizing {
 public:
  // Fills in the workspace of each of `offered` (for `kernel`) that has none, from its plan at
  // the full batch; one cuDNN refuses to finalize there stays without (no candidate at the full
  // batch, so it fits no limit there; a micro-batch may still run it). Drops the plans kept for
  // another kernel.
  void size(cudnnHandle_t handle, const KernelKey& kernel,
            std::vector<EngineConfiguration>& offered);
  // The plan made for `name` at `kernel`'s full batch, handed over (nullptr where none is kept).
  std::unique_ptr<EnginePlan> take(const KernelKey& kernel, const EngineName& name);
  // Drops the plans of configurations other than `names` (those that will not be measured).
  void keep_only(const std::vector<std::string>& names);

 private:
  std::string kernel_;  // whose plans these are
  std::map<std::string, std::unique_ptr<EnginePlan>> plans_;
};

}  // namespace ucudnn::cudnn
