#pragma once
// Tensor contents as bytes of a data type: random test and benchmark data, and values
// widened to double to compare outputs. float and double are the types filled and read;
// the others are not (nullopt).
#include <cstddef>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "core/convolution_problem.h"

namespace ucudnn {

// Every element of the shape's span, uniform in [-1, 1]; zeros for types other than float
// and double.
std::vector<std::byte> random_tensor_bytes(const TensorShape& shape, DataType type,
                                           std::mt19937_64& random);

std::optional<std::vector<double>> widened_values(std::span<const std::byte> bytes, DataType type);

}  // namespace ucudnn
