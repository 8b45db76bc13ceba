#include "core/reduction_precision.h"

namespace ucudnn {

bool splitting_reduces_precision(const KernelKey& kernel) {
  const ConvolutionProblem& p = kernel.problem;
  const bool narrow = p.data_type == DataType::kHalf || p.data_type == DataType::kBFloat16;
  return kernel.operation == Operation::kBackwardFilter && narrow &&
         element_size(p.compute_type) > element_size(p.data_type) &&
         !allows_reduced_precision_reduction(p.math_type);
}

BatchSizePolicy policy_for(const KernelKey& kernel, BatchSizePolicy policy) {
  return splitting_reduces_precision(kernel) ? BatchSizePolicy::kUndivided : policy;
}

std::vector<std::int64_t> planned_micro_batch_sizes(const KernelKey& kernel,
                                                    BatchSizePolicy policy) {
  return micro_batch_sizes(policy_for(kernel, policy), kernel.problem.batch());
}

}  // namespace ucudnn
