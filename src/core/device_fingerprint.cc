#include "core/device_fingerprint.h"

namespace ucudnn {

const char* const kUcudnnVersion = UCUDNN_VERSION;

std::string DeviceFingerprint::to_string() const {
  std::string out;
  auto put = [&out](const std::string& text) {
    for (char c : text) {
      if (c == ';' || c == '\\' || c == '=') out.push_back('\\');
      out.push_back(c);
    }
  };
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out.push_back(';');
    put(name);
    out.push_back('=');
    put(value);
  }
  return out;
}

const std::string* DeviceFingerprint::find(const std::string& field) const {
  for (const auto& [name, value] : fields)
    if (name == field) return &value;
  return nullptr;
}

}  // namespace ucudnn
