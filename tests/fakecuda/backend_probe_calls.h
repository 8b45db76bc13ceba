#pragma once
// How backend_probe calls the graph (backend) API: each call printed with its status and what
// reads back ("<call> => <status>[ <read back>]"), and a case's random choices from its seed, so
// that the real library and the double see the same calls and print comparable lines.
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace ucudnn::fakecuda::probe {

using Descriptor = cudnnBackendDescriptor_t;

// What a case prints: "<call> => <status>[ <read back>]".
class Log {
 public:
  void line(const std::string& call, cudnnStatus_t status, const std::string& back = "") {
    std::printf("%s => %d%s%s\n", call.c_str(), static_cast<int>(status), back.empty() ? "" : " ",
                back.c_str());
    std::fflush(stdout);
  }
};

template <typename T>
inline std::string joined(const std::vector<T>& values) {
  std::ostringstream out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    out << (i ? "," : "");
    if constexpr (sizeof(T) == 1 || std::is_enum_v<T>)
      out << static_cast<long long>(values[i]);
    else
      out << values[i];
  }
  return out.str();
}

class Draw {
 public:
  explicit Draw(unsigned long long seed) : rng_(seed) {}
  template <typename T>
  T from(const std::vector<T>& values) {
    return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng_)];
  }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  int between(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }

 private:
  std::mt19937_64 rng_;
};

// Calls with their printed form.
struct Backend {
  Log& log;

  Descriptor create(cudnnBackendDescriptorType_t type, const std::string& name) {
    Descriptor d = nullptr;
    log.line("create " + name, cudnnBackendCreateDescriptor(type, &d));
    return d;
  }
  template <typename T>
  cudnnStatus_t set(Descriptor d, const std::string& what, cudnnBackendAttributeName_t name,
                    cudnnBackendAttributeType_t type, std::vector<T> values, int64_t count = -1) {
    if (count < 0) count = static_cast<int64_t>(values.size());
    const cudnnStatus_t status =
        cudnnBackendSetAttribute(d, name, type, count, values.empty() ? nullptr : values.data());
    std::string shown;
    if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) shown = " [" + joined(values) + "]";
    log.line(
        "set " + what + " type " + std::to_string(type) + " count " + std::to_string(count) + shown,
        status);
    return status;
  }
  cudnnStatus_t set_descriptors(Descriptor d, const std::string& what,
                                cudnnBackendAttributeName_t name, std::vector<Descriptor> values) {
    const cudnnStatus_t status = cudnnBackendSetAttribute(
        d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(values.size()), values.data());
    log.line("set " + what + " count " + std::to_string(values.size()), status);
    return status;
  }
  cudnnStatus_t finalize(Descriptor d, const std::string& name) {
    const cudnnStatus_t status = cudnnBackendFinalize(d);
    log.line("finalize " + name, status);
    return status;
  }
  // Reads `capacity` elements of type T back and prints the count and the values.
  template <typename T>
  void get(Descriptor d, const std::string& what, cudnnBackendAttributeName_t name,
           cudnnBackendAttributeType_t type, int64_t capacity) {
    std::vector<T> values(static_cast<std::size_t>(capacity > 0 ? capacity : 1), T{});
    int64_t count = -7;
    const cudnnStatus_t status =
        cudnnBackendGetAttribute(d, name, type, capacity, &count, values.data());
    std::string back;
    if (status == CUDNN_STATUS_SUCCESS) {
      values.resize(static_cast<std::size_t>(count < 0 ? 0 : std::min<int64_t>(count, capacity)));
      back = "count " + std::to_string(count) + " [" + joined(values) + "]";
    }
    log.line(
        "get " + what + " type " + std::to_string(type) + " capacity " + std::to_string(capacity),
        status, back);
  }
  // The number of elements alone (no array).
  void count_of(Descriptor d, const std::string& what, cudnnBackendAttributeName_t name,
                cudnnBackendAttributeType_t type) {
    int64_t count = -7;
    const cudnnStatus_t status = cudnnBackendGetAttribute(d, name, type, 0, &count, nullptr);
    log.line("count " + what, status, status == CUDNN_STATUS_SUCCESS ? std::to_string(count) : "");
  }
};

}  // namespace ucudnn::fakecuda::probe
