#pragma once
// An execution plan of the graph API that ucudnn runs itself: the convolution as legacy
// descriptors (what a fallback or a WD placement runs with), where the variant pack's pointers
// go, the scaling factors, the workspace the application was told to provide, and the plan
// itself. Made at the plan's Finalize, read at every Execute.
//
// A capped promise is one whose engine must never run: the application set a workspace limit
// (UCUDNN_WORKSPACE_LIMIT, or the handle's option) that the engine exceeds, so it is told what
// ucudnn's plan within the limit needs, less than the engine's, and allocates that; or the user
// excluded the engine (UCUDNN_EXCLUDE_ALGORITHMS), and it is told what ucudnn's plan needs. Every
// path of such a plan runs ucudnn's micro-batches, or an undivided call within the workspace,
// or fails with a status, even where the application may never have read the answer.
#include <cudnn.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "core/kernel_key.h"
#include "cudnn/convolution_arguments.h"
#include "cudnn/descriptors.h"
#include "cudnn/plan_executor.h"
#include "shim/backend/graph_claim.h"
#include "shim/kernel_identity.h"

namespace ucudnn::shim::backend {

struct PlanPromise {
  PlanPromise(const cudnn::CudnnApi& api, const ConvolutionProblem& problem)
      : x(api, problem.x, problem.data_type),
        w(api, problem.w, problem.data_type),
        y(api, problem.y, problem.data_type),
        convolution(api, problem) {}

  cudnn::ConvolutionDescriptors descriptors() const {
    return {x.get(), w.get(), convolution.get(), y.get()};
  }

  Operation operation = Operation::kForward;
  cudnn::TensorDescriptor x;
  cudnn::FilterDescriptor w;
  cudnn::TensorDescriptor y;
  cudnn::ConvolutionDescriptor convolution;
  std::int64_t x_uid = 0, w_uid = 0, y_uid = 0;
  // As the legacy calls take them: doubles for double data, else floats.
  double alpha_double = 1, beta_double = 0;
  float alpha_float = 1, beta_float = 0;
  bool double_scaling = false;
  PlanScope scope;
  // The WR plan made at Finalize, run as it is at every Execute whose workspace holds it (null
  // under WD, where the session places each call).
  std::shared_ptr<const cudnn::PlanExecutor> executor;
  std::uint64_t workspace_bytes = 0;         // what GetAttribute answers
  std::uint64_t engine_workspace_bytes = 0;  // what cuDNN's engine of the plan needs
  bool capped = false;                       // the engine never runs: over the limit, or excluded
  // Whether the application was given workspace_bytes (it may have read the engine
  // configuration's workspace before the plan existed, or never asked): until it was, it
  // allocated no more than the engine's.
  mutable std::atomic<bool> answered{false};
  // Which of its graph's plans ucudnn runs (graph_claim.h); null: this one, always.
  std::shared_ptr<GraphClaim> claim;
  mutable std::atomic<bool> ceded{false};   // ran or answered as cuDNN's once: stays cuDNN's
  cudnnBackendDescriptor_t plan = nullptr;  // the execution plan the promise is for

  // Whether ucudnn runs the plan `executed` (this promise's) at this Execute. A capped plan is
  // always ucudnn's: its engine cannot run it.
  bool runs(cudnnBackendDescriptor_t executed) const {
    return capped || !claim || claim->take(executed, ceded);
  }

  // Whether the application, reading the plan's (or its engine configuration's) workspace, is
  // told workspace_bytes; otherwise cuDNN's answer, the engine's own, stands and the plan is
  // cuDNN's. A capped plan always answers: its engine cannot run it.
  bool answers_workspace() const {
    return capped || !claim || claim->answer(plan, ceded, workspace_bytes > engine_workspace_bytes);
  }

  // The workspace the application surely holds where it gives one: what it was told, or the
  // engine's own until then. A capped plan's answer below its engine's is the least it may
  // hold whatever it read; an excluded engine's plan may answer more than the engine, which an
  // application that never read the answer did not allocate.
  std::uint64_t allocated_bytes() const {
    if (answered.load(std::memory_order_relaxed)) return workspace_bytes;
    return capped ? std::min(workspace_bytes, engine_workspace_bytes) : engine_workspace_bytes;
  }

  // Whether cuDNN's engine may run the plan with the application's workspace: never a capped
  // plan's, whatever the application read (an engine configuration shared by several plans
  // answers for the last one made).
  bool engine_may_run() const { return !capped; }

  const void* alpha() const {
    return double_scaling ? static_cast<const void*>(&alpha_double) : &alpha_float;
  }
  const void* beta() const {
    return double_scaling ? static_cast<const void*>(&beta_double) : &beta_float;
  }
};

}  // namespace ucudnn::shim::backend
