#include "core/batch_size_policy.h"

#include "core/enum_names.h"
#include "core/text.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ucudnn {

constexpr EnumName<BatchSizePolicy> kBatchSizePolicyNames[] = {
    {BatchSizePolicy::kAll, "all"},
    {BatchSizePolicy::kPowerOfTwo, "powerOfTwo"},
    {BatchSizePolicy::kUndivided, "undivided"},
};

std::string_view name_of(BatchSizePolicy policy) {
  return name_in(kBatchSizePolicyNames, policy, "unknown");
}

std::string batch_size_policy_names() {
  return names_in(kBatchSizePolicyNames);
}

Expected<BatchSizePolicy> parse_batch_size_policy(std::string_view text) {
  if (auto policy = value_in(kBatchSizePolicyNames, text)) return *policy;
  return Error{"unknown batch size policy '" + std::string(text) + "'; valid values are " +
               batch_size_policy_names()};
}

std::vector<std::int64_t> micro_batch_sizes(BatchSizePolicy policy, std::int64_t batch) {
  std::vector<std::int64_t> sizes;
  if (batch <= 0) return sizes;
  switch (policy) {
    case BatchSizePolicy::kAll:
      for (std::int64_t b = 1; b <= batch; ++b) sizes.push_back(b);
      break;
    case BatchSizePolicy::kPowerOfTwo:
      for (std::int64_t b = 1; b < batch; b *= 2) sizes.push_back(b);
      sizes.push_back(batch);
      break;
    case BatchSizePolicy::kUndivided:
      sizes.push_back(batch);
      break;
  }
  return sizes;
}

}  // namespace ucudnn
