#pragma once
// A configuration made runnable on cuDNN: the descriptors of each distinct micro-batch size
// and each micro-batch's algorithm, resolved once when the plan is built. Running queues
// the micro-batches on the handle's stream, each a pointer offset of n * strideN elements
// into the caller's x and y, and never synchronizes. Forward and BackwardData apply the
// caller's alpha/beta to every slice; BackwardFilter accumulates into dw: the caller's beta
// on the first micro-batch, 1 on every later one.
#include <map>
#include <memory>
#include <vector>

#include "core/configuration.h"
#include "cudnn/convolution_calls.h"
#include "cudnn/micro_batch_descriptors.h"

namespace ucudnn::cudnn {

class PlanExecutor {
 public:
  // Throws std::invalid_argument for a configuration that does not cover the batch or names
  // an algorithm cuDNN does not have, std::runtime_error when a descriptor is refused.
  PlanExecutor(const CudnnApi& api, const KernelKey& kernel, Configuration configuration);

  const KernelKey& kernel() const { return kernel_; }
  const Configuration& configuration() const { return configuration_; }
  std::uint64_t workspace_bytes() const { return configuration_.workspace_bytes(); }

  struct Result {
    cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
    bool output_touched = false;  // a micro-batch ran before the failure: do not redo the call
  };
  Result run(cudnnHandle_t handle, const void* alpha, const ConvolutionBuffers& buffers,
             void* workspace, std::size_t workspace_bytes, const void* beta) const;

 private:
  struct Step {
    const MicroBatchDescriptors* descriptors;
    int algorithm;
    std::int64_t batch;
  };
  const CudnnApi& api_;
  KernelKey kernel_;
  Configuration configuration_;
  std::map<std::int64_t, std::unique_ptr<MicroBatchDescriptors>> descriptors_;
  std::vector<Step> steps_;
  std::size_t x_batch_stride_bytes_ = 0, y_batch_stride_bytes_ = 0;
};

}  // namespace ucudnn::cudnn
