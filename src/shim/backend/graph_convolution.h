#pragma once
// The convolution an execution plan computes, read from what the application set on the plan's
// descriptors (descriptor_table.h), when its graph is one ucudnn micro-batches: exactly one
// convolution operation (forward, backward data or backward filter) over non-virtual tensors
// passed by address, whose first dimension is the batch, with symmetric padding and a filter
// layout the legacy API can describe (KCRS or KRSC). Anything else is passed through untouched,
// and the error says why.
#include <cudnn.h>

#include <cstdint>
#include <memory>

#include "core/convolution_problem.h"
#include "core/expected.h"
#include "core/kernel_key.h"
#include "shim/backend/descriptor_table.h"

namespace ucudnn::shim::backend {

struct GraphConvolution {
  Operation operation = Operation::kForward;
  ConvolutionProblem problem;  // math type left at the default: the engine's notes decide it
  std::int64_t x_uid = 0, w_uid = 0, y_uid = 0;  // x is dx, y is dy, w is dw as the operation has
  double alpha = 1, beta = 0;
  cudnnHandle_t handle = nullptr;     // the plan's or the graph's (deprecated attributes), if set
  std::shared_ptr<GraphClaim> claim;  // the graph's (made here for its first plan)
};

// Call under the table's lock (DescriptorTable::read): the records are read in place (and the
// graph's claim made, the one field written).
Expected<GraphConvolution> plan_convolution(const Record& plan);

}  // namespace ucudnn::shim::backend
