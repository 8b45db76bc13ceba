#include "core/knob_variants.h"

#include <algorithm>

namespace ucudnn {

namespace {

// cudnnBackendKnobType_t's values (core includes no cuDNN header).
constexpr std::int64_t kSplitK = 0, kSplitKBuffers = 12, kSplitKSlices = 17, kWorkspace = 25;

const KnobRange* range_of(std::int64_t type, const std::vector<KnobRange>& ranges) {
  for (const KnobRange& r : ranges)
    if (r.type == type) return &r;
  return nullptr;
}

// The largest value of `range` at most `value`.
std::int64_t on_stride(const KnobRange& range, std::int64_t value) {
  const std::int64_t stride = std::max<std::int64_t>(range.stride, 1);
  if (value <= range.minimum) return range.minimum;
  return range.minimum + (value - range.minimum) / stride * stride;
}

}  // namespace

bool sizes_workspace(std::int64_t knob_type) {
  return knob_type == kSplitK || knob_type == kSplitKBuffers || knob_type == kSplitKSlices ||
         knob_type == kWorkspace;
}

std::vector<EngineName> smaller_workspace_variants(const EngineName& name,
                                                   const std::vector<KnobRange>& ranges,
                                                   int per_knob) {
  std::vector<EngineName> variants;
  auto add = [&](EngineName variant) {
    if (variant == name) return;
    if (std::find(variants.begin(), variants.end(), variant) == variants.end())
      variants.push_back(std::move(variant));
  };
  EngineName all_least = name;
  for (std::size_t i = 0; i < name.knobs.size(); ++i) {
    const auto [type, value] = name.knobs[i];
    const KnobRange* range = sizes_workspace(type) ? range_of(type, ranges) : nullptr;
    if (!range || value <= range->minimum) continue;
    all_least.knobs[i].second = range->minimum;
    std::int64_t lowered = value;
    for (int n = 0; n < per_knob && lowered > range->minimum; ++n) {
      lowered = on_stride(*range, lowered / 2);
      if (lowered >= value) lowered = on_stride(*range, value - 1);
      EngineName variant = name;
      variant.knobs[i].second = lowered;
      add(std::move(variant));
    }
  }
  add(std::move(all_least));
  return variants;
}

}  // namespace ucudnn
