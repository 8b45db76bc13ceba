#pragma once
// The application's own execution plan as a candidate beside ucudnn's (UCUDNN_GRAPH_PLANS=
// compare): both are run at the full batch, side by side, and ucudnn keeps its plan only where it
// is clearly faster on the GPU, by more than what issuing it costs the host beyond executing the
// application's finalized plan.
#include <cudnn.h>

#include <cstdint>

#include "cudnn/plan_executor.h"
#include "shim/backend/graph_convolution.h"

namespace ucudnn::shim::backend {

// Whether the application's own execution plans are about as fast as ucudnn's plan `ours`:
// this one, or the fastest the application finalized before for the convolution (a framework
// that autotunes times them all and takes the fastest, which must not become ucudnn's slower
// one). Both plans are measured now, under the device's benchmarking lock, and the verdict is
// logged at info with both times. When the application's wins, cuDNN runs it and ucudnn stays
// out of the way; also when the two cannot be compared (no memory to run them). Whatever the
// limit: the application allocates at least its engine's workspace in any case (what ucudnn
// answers never falls below it, so that cuDNN can always run the plan itself), so a slower plan
// of ucudnn's within the limit would save no memory.
bool application_plan_wins(cudnnBackendDescriptor_t plan_descriptor, const GraphConvolution& c,
                           const cudnn::PlanExecutor& ours, bool deterministic_only,
                           std::uint64_t engine_bytes);

}  // namespace ucudnn::shim::backend
