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

// Outside every operation's enum range, and unlikely to be passed by mistake ("uc").
inline constexpr int kVirtualAlgorithm = 0x7563;

int algorithm_count(Operation operation);  // cuDNN's *_ALGO_COUNT
// Names without the prefix, e.g. "FFT_TILING", "ALGO_1"; empty for a value out of range.
std::string_view algorithm_name(Operation operation, int algorithm);
std::optional<int> algorithm_value(Operation operation, std::string_view name);
std::vector<std::string> algorithm_names(Operation operation);
// As cuDNN documents: BackwardData ALGO_0 and BackwardFilter ALGO_0 / ALGO_3 are not.
bool is_deterministic(Operation operation, int algorithm);

}  // namespace ucudnn::cudnn
