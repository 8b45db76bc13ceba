#pragma once
// Which devices to use, as people write it: "all" or a comma-separated list of device
// numbers ("0,2"). Shared by UCUDNN_DEVICES (and µ-cuDNN's UCUDNN_BENCHMARK_DEVICES) and
// `ucudnn bench --devices`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"

namespace ucudnn {

// nullopt: all devices. The error is "is not \"all\" or a list of device numbers like 0,1";
// callers put the variable or option name and the text in front.
Expected<std::optional<std::vector<int>>> parse_device_list(std::string_view text);

}  // namespace ucudnn
