#include "device_selection.h"

#include <set>

#include "user_input/device_list.h"

namespace ucudnn::cli {

namespace {

constexpr const char* kVariable = "UCUDNN_DEVICES";
constexpr const char* kAlias = "UCUDNN_BENCHMARK_DEVICES";

// `name` ("--devices" or the variable) and the text lead the message.
Expected<DeviceChoice> parse(const std::string& name, const std::string& text) {
  auto devices = parse_device_list(text);
  if (!devices) return Error{name + "='" + text + "' " + devices.error()};
  DeviceChoice choice;
  choice.given_by = name;
  if (!*devices) {
    choice.kind = DeviceChoice::Kind::kAll;
  } else {
    choice.kind = DeviceChoice::Kind::kList;
    choice.list = **devices;
  }
  return choice;
}

}  // namespace

Expected<DeviceChoice> device_choice(const std::string& option, const Environment& environment) {
  if (!option.empty()) return parse("--devices", option);
  for (const char* name : {kVariable, kAlias})
    if (const char* value = environment(name); value && *value) return parse(name, value);
  return DeviceChoice{};
}

Expected<std::vector<int>> resolve_devices(const DeviceChoice& choice, int count, int current) {
  std::vector<int> devices;
  switch (choice.kind) {
    case DeviceChoice::Kind::kCurrent:
      devices = {current};
      break;
    case DeviceChoice::Kind::kAll:
      for (int d = 0; d < count; ++d) devices.push_back(d);
      break;
    case DeviceChoice::Kind::kList: {
      std::set<int> seen;
      for (int d : choice.list) {
        if (d >= count)
          return Error{choice.given_by + ": GPU " + std::to_string(d) +
                       " does not exist (this machine has " + std::to_string(count) +
                       (count == 1 ? " GPU" : " GPUs") + ")"};
        if (!seen.insert(d).second)
          return Error{choice.given_by + ": GPU " + std::to_string(d) + " is listed twice"};
        devices.push_back(d);
      }
      break;
    }
  }
  if (devices.empty()) return Error{"no GPU to benchmark on (this machine has none)"};
  return devices;
}

std::vector<int> devices_of_local_rank(const std::vector<int>& devices, int local_rank,
                                       int local_size) {
  if (devices.empty() || local_size <= 1) return devices;
  const auto n = static_cast<int>(devices.size());
  if (n <= local_size) return {devices[static_cast<std::size_t>(local_rank % n)]};
  std::vector<int> mine;
  for (int i = local_rank; i < n; i += local_size)
    mine.push_back(devices[static_cast<std::size_t>(i)]);
  return mine;
}

std::optional<std::string> mixed_models_error(
    const std::vector<std::pair<int, std::string>>& models) {
  std::set<std::string> names;
  for (const auto& [device, name] : models) names.insert(name);
  if (names.size() <= 1) return std::nullopt;
  std::string list;
  for (const auto& [device, name] : models)
    list += (list.empty() ? "" : ", ") + std::to_string(device) + ": " + name;
  return "the GPUs are of different models (" + list +
         "); measurements are valid for one model only: choose GPUs of one model with "
         "--devices (or UCUDNN_DEVICES), e.g. --devices " +
         std::to_string(models.front().first);
}

}  // namespace ucudnn::cli
