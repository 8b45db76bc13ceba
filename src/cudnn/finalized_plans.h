#pragma once
// The execution plans finalized while one kernel is planned (the benchmarker's, one per
// candidate and micro-batch shape it times; those that check a stored plan's workspace; those
// an executor had to finalize), kept until the kernel's executors are made, which share the
// ones they run instead of finalizing them again. A Finalize costs cuDNN about a millisecond,
// and a runtime-compiled engine's 100 ms and more (it compiles there), so planning a kernel
// finalizes each plan it runs once: not once for measuring and again for its executor, nor
// once for each of a CPU/GPU split's two executors (shim/hybrid_executor.h) where they run the
// same configuration at the same shape. A finalized plan is immutable, so executors share it.
// One planning's, on one thread and one handle (a plan is finalized on a handle).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "core/engine_name.h"
#include "core/kernel_key.h"
#include "cudnn/engine_plan.h"

namespace ucudnn::cudnn {

class FinalizedPlans {
 public:
  // Keeps `plan`, made for `shape` (the kernel at one micro-batch) with these scaling factors;
  // it replaces one kept for the same.
  void keep(const KernelKey& shape, const EngineName& name, double alpha, double beta,
            std::shared_ptr<const EnginePlan> plan);
  // Keeps the plans of a candidate measured at `shape` (beta = 0, and the beta = 1 one where
  // later micro-batches accumulate, or nullptr) unless a candidate kept for that shape is as
  // fast and needs no more workspace, one of the two strictly; drops the kept ones it so
  // beats. What a plan runs at a shape, under any limit, is the fastest candidate that fits:
  // on that front. So the executor still finds its plans here, and a planning holds a few
  // plans per shape, not one per candidate measured (a runtime-compiled engine's plan holds its
  // kernels in device memory).
  void keep_measured(const KernelKey& shape, const EngineName& name, double time_ms,
                     std::uint64_t workspace_bytes, std::unique_ptr<EnginePlan> plan,
                     std::unique_ptr<EnginePlan> accumulating);
  // The plan kept for these, or nullptr.
  const EnginePlan* find(const KernelKey& shape, const EngineName& name, double alpha,
                         double beta) const;
  // The plan kept for these, shared (it stays kept for the next executor); nullptr where none
  // is.
  std::shared_ptr<const EnginePlan> share(const KernelKey& shape, const EngineName& name,
                                          double alpha, double beta) const;

 private:
  using Key = std::tuple<std::string, std::string, double, double>;
  static Key key(const KernelKey& shape, const EngineName& name, double alpha, double beta);
  std::map<Key, std::shared_ptr<const EnginePlan>> plans_;
  struct Measured {
    EngineName name;
    double time_ms;
    std::uint64_t workspace_bytes;
  };
  std::map<std::string, std::vector<Measured>> fronts_;  // by shape, what keep_measured kept
};

// The plan `kept` holds for these, else one finalized now and kept there. Throws
// EngineRefused.
std::shared_ptr<const EnginePlan> kept_or_finalized(FinalizedPlans* kept, cudnnHandle_t handle,
                                                    const KernelKey& shape, const EngineName& name,
                                                    double alpha, double beta);

}  // namespace ucudnn::cudnn
