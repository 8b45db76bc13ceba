#pragma once
// A configuration made runnable on cuDNN, everything resolved once when the plan is built: a
// micro-batch of an engine configuration runs as cuDNN's execution plan finalized for that
// shape (engine_plan.h), a legacy algorithm's as a legacy call on descriptors of that size.
// Scaling factors are part of an execution plan: plans for alpha = 1 with beta = 0 and (for
// BackwardFilter's accumulation over several micro-batches) beta = 1 are made with the executor;
// any other pair when a caller that knows it prepares it (prepare_scalars), else on first use,
// and looked up under a lock of this executor's that the usual pairs never take. Running queues the
// micro-batches on the handle's stream, each a pointer offset of n * strideN elements into the
// caller's x and y, and never synchronizes. Forward and BackwardData apply the caller's alpha/beta
// to every slice; BackwardFilter accumulates into dw: the caller's beta on the first micro-batch, 1
// on every later one.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/configuration.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/engine_plan.h"
#include "cudnn/finalized_plans.h"
#include "cudnn/micro_batch_descriptors.h"

namespace ucudnn::cudnn {

class PlanExecutor {
 public:
  // Asks cuDNN (through `handle`) for each micro-batch's workspace: what the plan needs is
  // what the library says now, never what a stored configuration claims. Throws
  // std::invalid_argument for a configuration that does not cover the batch, names an
  // algorithm cuDNN does not have or one it refuses at that size, std::runtime_error when a
  // descriptor is refused. The execution plans it runs are shared with `kept` where it holds
  // them (finalized on `handle` while the kernel was planned, finalized_plans.h), else
  // finalized here and kept there for the kernel's other executors.
  PlanExecutor(const CudnnApi& api, cudnnHandle_t handle, const KernelKey& kernel,
               Configuration configuration, FinalizedPlans* kept = nullptr);
  virtual ~PlanExecutor() = default;

  const KernelKey& kernel() const { return kernel_; }
  // What runs (a CPU/GPU hybrid plan: its split; see shim/hybrid_executor.h).
  virtual const Configuration& configuration() const { return configuration_; }
  virtual std::uint64_t workspace_bytes() const { return workspace_bytes_; }
  // Whether every micro-batch runs deterministically: a legacy algorithm cuDNN documents so,
  // an engine without the NONDETERMINISTIC note.
  bool deterministic() const { return deterministic_; }
  // The application's calls this plan served (count_run(): the caller's to say, so that
  // ucudnn's own timing runs are not counted), shared so that an account can read it after
  // the executor is gone: the line ucudnn logs at exit weights each kernel by its runs.
  struct alignas(64) RunCount {  // a line of its own: executors run on different threads
    std::atomic<std::uint64_t> value{0};
  };
  std::shared_ptr<const RunCount> runs() const { return runs_; }
  void count_run() const { runs_->value.fetch_add(1, std::memory_order_relaxed); }

  struct Result {
    cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
    bool output_touched = false;  // a micro-batch ran before the failure: do not redo the call
  };
  // A workspace smaller than workspace_bytes() is refused before anything runs
  // (CUDNN_STATUS_BAD_PARAM, output untouched).
  virtual Result run(cudnnHandle_t handle, const void* alpha, const ConvolutionBuffers& buffers,
                     void* workspace, std::size_t workspace_bytes, const void* beta) const;
  // Makes the execution plans that run() with these scaling factors (passed as to run()) needs
  // (a graph-API plan knows its scalars when it is made): none is then built while it runs.
  void prepare_scalars(cudnnHandle_t handle, const void* alpha, const void* beta) const;

 private:
  // An engine configuration's plans at one micro-batch shape.
  struct EnginePlans {
    EngineName name;
    std::shared_ptr<const EnginePlan> one_zero, one_one;  // alpha = 1 and beta = 0 / 1
  };
  struct Step {
    const MicroBatchDescriptors* descriptors;  // legacy algorithms
    int algorithm;
    const EnginePlans* engine;  // engine configurations
    std::int64_t batch;
  };
  // The beta of the micro-batch `offset` images into the batch: the caller's, or 1 where later
  // micro-batches add to the output (BackwardFilter's dw).
  const void* step_beta(std::size_t offset, const void* beta) const;
  // The step's plan for these scaling factors; null when cuDNN refuses to make it.
  const EnginePlan* engine_plan(const Step& step, cudnnHandle_t handle, double alpha,
                                double beta) const;
  const CudnnApi& api_;
  KernelKey kernel_;
  Configuration configuration_;
  std::map<std::int64_t, std::unique_ptr<MicroBatchDescriptors>> descriptors_;
  std::map<std::pair<std::int64_t, std::string>, EnginePlans> engine_plans_;  // (batch, name)
  mutable std::mutex other_scalars_mutex_;
  // By the step's plans (a shape and configuration) and the scalars; null: cuDNN's refusal.
  mutable std::map<std::tuple<const EnginePlans*, double, double>, std::unique_ptr<EnginePlan>>
      other_scalars_;
  std::vector<Step> steps_;
  std::size_t x_batch_stride_bytes_ = 0, y_batch_stride_bytes_ = 0;
  std::uint64_t workspace_bytes_ = 0;
  bool deterministic_ = true;
  std::shared_ptr<RunCount> runs_ = std::make_shared<RunCount>();
};

}  // namespace ucudnn::cudnn
