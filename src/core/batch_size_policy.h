#pragma once
// Which micro-batch sizes the planner benchmarks (µ-cuDNN section III-D).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace ucudnn {

enum class BatchSizePolicy { kAll, kPowerOfTwo, kUndivided };

std::string_view name_of(BatchSizePolicy policy);
// "all, powerOfTwo, undivided": the names, for help texts and messages.
std::string batch_size_policy_names();

// Case-insensitive: "all", "powerOfTwo", "undivided". The error names the valid values.
Expected<BatchSizePolicy> parse_batch_size_policy(std::string_view text);

// Ascending candidate micro-batch sizes for a mini-batch of `batch`:
// all: 1..B; powerOfTwo: 1, 2, 4, ... < B, and B itself; undivided: B.
std::vector<std::int64_t> micro_batch_sizes(BatchSizePolicy policy, std::int64_t batch);

}  // namespace ucudnn
