#pragma once
// Which GPUs `ucudnn bench --backend cudnn` benchmarks on: --devices, else the environment
// (UCUDNN_DEVICES, alias UCUDNN_BENCHMARK_DEVICES, read by the shim's settings parser so that
// both mean the same), else the current device only. GPUs of different models are refused:
// their measurements would be stored under one fingerprint.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster.h"
#include "core/expected.h"

namespace ucudnn::cli {

struct DeviceChoice {
  enum class Kind { kCurrent, kAll, kList };
  Kind kind = Kind::kCurrent;
  std::vector<int> list;               // kList: device numbers, as given
  std::string given_by = "--devices";  // or the variable that gave them, for messages
  bool explicit_choice() const { return kind != Kind::kCurrent; }
};

// `option`: the --devices text, empty when not given.
Expected<DeviceChoice> device_choice(const std::string& option, const Environment& environment);

// Device numbers for a machine with `count` devices whose current one is `current`. Errors:
// a device that does not exist, one listed twice.
Expected<std::vector<int>> resolve_devices(const DeviceChoice& choice, int count, int current);

// In an MPI job, the ranks of a node share its devices: rank r of L takes devices r, r + L,
// ..., or device r mod n when there are fewer devices than ranks.
std::vector<int> devices_of_local_rank(const std::vector<int>& devices, int local_rank,
                                       int local_size);

// nullopt when all (device, model name) pairs have one model; else the error listing them.
std::optional<std::string> mixed_models_error(
    const std::vector<std::pair<int, std::string>>& models);

}  // namespace ucudnn::cli
