#include "core/tensor_values.h"

#include <cstring>

namespace ucudnn {

namespace {
template <typename T>
void fill_uniform(std::vector<std::byte>& bytes, std::mt19937_64& random) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (std::size_t i = 0; i < bytes.size() / sizeof(T); ++i) {
    const auto v = static_cast<T>(uniform(random));
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
}

template <typename T>
std::vector<double> widen(std::span<const std::byte> bytes) {
  std::vector<double> values(bytes.size() / sizeof(T));
  for (std::size_t i = 0; i < values.size(); ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    values[i] = static_cast<double>(v);
  }
  return values;
}
}  // namespace

std::vector<std::byte> random_tensor_bytes(const TensorShape& shape, DataType type,
                                           std::mt19937_64& random) {
  std::vector<std::byte> bytes(shape.span_elements() * element_size(type));
  if (type == DataType::kDouble)
    fill_uniform<double>(bytes, random);
  else if (type == DataType::kFloat)
    fill_uniform<float>(bytes, random);
  return bytes;
}

std::optional<std::vector<double>> widened_values(std::span<const std::byte> bytes, DataType type) {
  if (type == DataType::kDouble) return widen<double>(bytes);
  if (type == DataType::kFloat) return widen<float>(bytes);
  return std::nullopt;
}

}  // namespace ucudnn
