#include "host_tensors.h"

#include <cstring>

namespace ucudnn::cpu {

namespace {
std::vector<std::byte> random_buffer(const TensorShape& shape, DataType type,
                                     std::mt19937_64& random) {
  const std::size_t count = shape.span_elements();
  std::vector<std::byte> bytes(count * element_size(type));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (std::size_t i = 0; i < count; ++i) {
    if (type == DataType::kDouble) {
      const double v = uniform(random);
      std::memcpy(bytes.data() + i * 8, &v, 8);
    } else {
      const auto v = static_cast<float>(uniform(random));
      std::memcpy(bytes.data() + i * 4, &v, 4);
    }
  }
  return bytes;
}
}  // namespace

HostTensors::HostTensors(const ConvolutionProblem& problem, std::mt19937_64& random)
    : x_(random_buffer(problem.x, problem.data_type, random)),
      w_(random_buffer(problem.w, problem.data_type, random)),
      y_(random_buffer(problem.y, problem.data_type, random)) {}

}  // namespace ucudnn::cpu
