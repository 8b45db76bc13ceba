#include "user_input/device_list.h"

#include <cstdlib>

#include "core/text.h"

namespace ucudnn {

Expected<std::optional<std::vector<int>>> parse_device_list(std::string_view text) {
  if (equals_ignoring_case(text, "all")) return std::optional<std::vector<int>>{};
  const Error invalid{"is not \"all\" or a list of device numbers like 0,1"};
  std::vector<int> devices;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item(text.substr(start, comma - start));
    char* end = nullptr;
    const long value = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || value < 0 || value > 1024) return invalid;
    devices.push_back(static_cast<int>(value));
    start = comma + 1;
  }
  return std::optional<std::vector<int>>{std::move(devices)};
}

}  // namespace ucudnn
