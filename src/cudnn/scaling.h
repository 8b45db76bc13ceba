#pragma once
// cuDNN's alpha and beta are host scalars whose type follows the data: double for double
// tensors, float for every other type. One place knows that.
#include "core/convolution_problem.h"

namespace ucudnn::cudnn {

// Pointers to static 1 and 0 of the right type, for calls ucudnn makes on its own behalf.
inline const void* scaling_one(DataType type) {
  static constexpr float kFloat = 1;
  static constexpr double kDouble = 1;
  return type == DataType::kDouble ? static_cast<const void*>(&kDouble) : &kFloat;
}
inline const void* scaling_zero(DataType type) {
  static constexpr float kFloat = 0;
  static constexpr double kDouble = 0;
  return type == DataType::kDouble ? static_cast<const void*>(&kDouble) : &kFloat;
}

// The caller's scalar as a double.
inline double scaling_value(const void* scale, DataType type) {
  return type == DataType::kDouble ? *static_cast<const double*>(scale)
                                   : *static_cast<const float*>(scale);
}

// Is the caller's scalar zero?
inline bool scaling_is_zero(const void* scale, DataType type) {
  return type == DataType::kDouble ? *static_cast<const double*>(scale) == 0
                                   : *static_cast<const float*>(scale) == 0;
}

}  // namespace ucudnn::cudnn
