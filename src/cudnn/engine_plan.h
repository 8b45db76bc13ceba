#pragma once
// One engine configuration made runnable at one micro-batch shape: cuDNN's execution plan,
// finalized once (with the graph, the engine and its knob choices it needs), its exact
// workspace, and Execute on the caller's pointers. What a planned micro-batch runs as, and what
// the benchmarker times: a plan cuDNN refuses to finalize at some shape is no candidate there.
#include <cudnn.h>

#include <cstdint>
#include <stdexcept>

#include "core/engine_name.h"
#include "cudnn/convolution_arguments.h"
#include "cudnn/convolution_graph.h"
#include "cudnn/engine_configurations.h"

namespace ucudnn::cudnn {

// cuDNN refused the configuration at this shape (or the library has no graph API).
class EngineRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where every micro-batch writes the whole output (BackwardFilter's dw), those after the first
// add to it (beta = 1): the plan executor runs them so, and a configuration is measured so.
// Forward and BackwardData write their own slices of y and dx.
inline bool later_micro_batches_accumulate(Operation operation) {
  return operation == Operation::kBackwardFilter;
}

class EnginePlan {
 public:
  // Throws EngineRefused.
  EnginePlan(cudnnHandle_t handle, Operation operation, const ConvolutionProblem& problem,
             const EngineName& name, double alpha, double beta);

  std::uint64_t workspace_bytes() const { return workspace_bytes_; }
  const EngineNotes& notes() const { return notes_; }
  // Queues the plan on the handle's stream. CUDNN_STATUS_BAD_PARAM, with nothing run, for a
  // pointer without the alignment the graph promised.
  cudnnStatus_t execute(cudnnHandle_t handle, const ConvolutionBuffers& buffers,
                        void* workspace) const;

 private:
  ConvolutionGraph graph_;
  BackendDescriptor plan_;
  std::uint64_t workspace_bytes_ = 0;
  EngineNotes notes_;
};

}  // namespace ucudnn::cudnn
