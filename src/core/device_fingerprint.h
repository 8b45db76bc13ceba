#pragma once
// What a measurement is valid for: the device (GPU: name, compute capability, SM count,
// memory; CPU: model, cores, BLAS kernel) and the library versions (cuDNN, ucudnn). Two
// measurements are comparable only under equal fingerprints.
#include <string>
#include <utility>
#include <vector>

namespace ucudnn {

inline constexpr const char* kUcudnnVersion = "0.1.0";

struct DeviceFingerprint {
  // Ordered (name, value) pairs, e.g. {"kind","gpu"}, {"name","NVIDIA H100"}, {"cc","9.0"}.
  std::vector<std::pair<std::string, std::string>> fields;

  // Canonical "kind=gpu;name=NVIDIA H100;...;ucudnn=0.1.0": equal fingerprints give equal
  // strings. ';' and '\\' inside values are escaped with '\\'.
  std::string to_string() const;
  const std::string* find(const std::string& field) const;

  friend bool operator==(const DeviceFingerprint&, const DeviceFingerprint&) = default;
};

}  // namespace ucudnn
