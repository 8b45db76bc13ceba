#pragma once
// cuDNN's convolution algorithms per operation, by stable name (the planner and the database
// never store an enum value), and ucudnn's virtual algorithm: the value Get/Find return
// for a plan, which a later convolution call passes back to run it.
#include <cudnn.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_key.h"

namespace ucudnn::cudnn {

int algorithm_count(Operation operation);  // cuDNN's *_ALGO_COUNT

// The operation's *_ALGO_COUNT: an enumerator (so a C++ application may hold it in the enum
// type without undefined behaviour, which any value past the enum's range would be) that
// names no algorithm, so cuDNN itself would reject it.
inline int virtual_algorithm(Operation operation) {
  return algorithm_count(operation);
}
// Names without the prefix, e.g. "FFT_TILING", "ALGO_1"; empty for a value out of range.
std::string_view algorithm_name(Operation operation, int algorithm);
std::optional<int> algorithm_value(Operation operation, std::string_view name);
std::vector<std::string> algorithm_names(Operation operation);
// As cuDNN documents: BackwardData ALGO_0 and BackwardFilter ALGO_0 / ALGO_3 are not.
bool is_deterministic(Operation operation, int algorithm);

}  // namespace ucudnn::cudnn
