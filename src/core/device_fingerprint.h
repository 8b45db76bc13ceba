#pragma once
// What a measurement is valid for: the device (GPU: name, compute capability, SM count,
// memory; CPU: model, cores, BLAS kernel) and the library versions (cuDNN, ucudnn). Two
// measurements are comparable only under equal fingerprints.
#include <string>
#include <utility>
#include <vector>

namespace ucudnn {

// The project's version (CMakeLists.txt), part of every fingerprint: a release that measures
// differently (other candidates, another way of timing them) bumps it, and measurements an
// earlier one stored are then measured again rather than trusted.
extern const char* const kUcudnnVersion;

struct DeviceFingerprint {
  // Ordered (name, value) pairs, e.g. {"kind","gpu"}, {"name","NVIDIA H100"}, {"cc","9.0"}.
  std::vector<std::pair<std::string, std::string>> fields;

  // Canonical "kind=gpu;name=NVIDIA H100;...;ucudnn=0.2.0": equal fingerprints give equal
  // strings. ';' and '\\' inside values are escaped with '\\'.
  std::string to_string() const;
  const std::string* find(const std::string& field) const;

  friend bool operator==(const DeviceFingerprint&, const DeviceFingerprint&) = default;
};

}  // namespace ucudnn
