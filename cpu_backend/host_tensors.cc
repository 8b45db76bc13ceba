#include "host_tensors.h"

#include "core/tensor_values.h"

namespace ucudnn::cpu {

HostTensors::HostTensors(const ConvolutionProblem& problem, std::mt19937_64& random)
    : x_(random_tensor_bytes(problem.x, problem.data_type, random)),
      w_(random_tensor_bytes(problem.w, problem.data_type, random)),
      y_(random_tensor_bytes(problem.y, problem.data_type, random)) {}

std::vector<double> HostTensors::output_values(Operation operation, DataType type) const {
  const std::vector<std::byte>& bytes = operation == Operation::kForward        ? y_
                                        : operation == Operation::kBackwardData ? x_
                                                                                : w_;
  return widened_values(bytes, type).value_or(std::vector<double>{});
}

}  // namespace ucudnn::cpu
