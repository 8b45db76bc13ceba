#include "cudnn/micro_batch_descriptors.h"

namespace ucudnn::cudnn {

MicroBatchDescriptors::MicroBatchDescriptors(const CudnnApi& api, const ConvolutionProblem& problem,
                                             std::int64_t micro_batch)
    : x(api, problem.with_batch(micro_batch).x, problem.data_type),
      y(api, problem.with_batch(micro_batch).y, problem.data_type),
      w(api, problem.w, problem.data_type),
      convolution(api, problem) {}

}  // namespace ucudnn::cudnn
