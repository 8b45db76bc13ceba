#pragma once
// cudnnBackendExecute's work in the double: a lone convolution runs as the legacy convolution of
// the engine's algorithm (its modeled time and workspace); a forward convolution with an epilogue
// as one fused kernel (the convolution into a virtual tensor, then the pointwise operations).
// Trace: backend-execute op=<...> engine=<i> n=<batch> epilogue=<count> x_uid=<uid>
//        workspace=<the engine's>
#include <cudnn.h>

#include "backend_descriptors.h"

namespace ucudnn::fakecuda {

// `pack` is a finalized variant pack: its pointers by unique id, and its workspace.
cudnnStatus_t execute_convolution(cudnnHandle_t handle, const BackendGraph& graph,
                                  const BackendEngine& engine, const BackendDescriptor& pack);

}  // namespace ucudnn::fakecuda
