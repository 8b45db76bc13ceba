#include "host_tensors.h"

#include <cstring>

namespace ucudnn::cpu {

std::size_t element_size(DataType type) {
  return type == DataType::kDouble ? 8 : 4;
}

std::size_t span_elements(const TensorShape& shape) {
  std::int64_t last = 0;
  for (std::size_t i = 0; i < shape.dims.size(); ++i)
    last += (shape.dims[i] - 1) * shape.strides[i];
  return static_cast<std::size_t>(last + 1);
}

namespace {
std::vector<std::byte> random_buffer(const TensorShape& shape, DataType type,
                                     std::mt19937_64& random) {
  const std::size_t count = span_elements(shape);
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
