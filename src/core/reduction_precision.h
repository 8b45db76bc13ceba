#pragma once
// Where splitting a kernel into micro-batches changes its numerics. A BackwardFilter plan of
// several micro-batches sums their dw in dw's own type (each adds into it with beta = 1), where
// cuDNN sums the whole batch in its compute type. For half or bfloat16 data computed in float,
// that is a reduction in reduced precision (one rounding to 16 bits per micro-batch): the
// kernel allows it only where its math type allows reductions in reduced precision
// (allows_reduced_precision_reduction), as cuDNN's own engines with the
// REDUCED_PRECISION_REDUCTION note. Forward and BackwardData write each output element
// from one micro-batch, so their splits are exact.
#include <cstdint>
#include <vector>

#include "core/batch_size_policy.h"
#include "core/kernel_key.h"

namespace ucudnn {

bool splitting_reduces_precision(const KernelKey& kernel);

// The policy `kernel` is planned under: `policy`, or undivided where splitting reduces
// precision.
BatchSizePolicy policy_for(const KernelKey& kernel, BatchSizePolicy policy);

// The micro-batch sizes `kernel` is measured and planned at under `policy` (ascending).
std::vector<std::int64_t> planned_micro_batch_sizes(const KernelKey& kernel,
                                                    BatchSizePolicy policy);

}  // namespace ucudnn
