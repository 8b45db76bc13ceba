#pragma once
// One of cuDNN's graph-API descriptors that ucudnn made for itself, destroyed with its owner;
// calls go to the real library through backend_api() and count as real time
// (real_call_clock.h). Setting an attribute or finalizing returns cuDNN's status.
#include <cudnn.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "cudnn/backend_api.h"

namespace ucudnn::cudnn {

class BackendDescriptor {
 public:
  BackendDescriptor() = default;
  // get() is null when the library lacks the graph API or refuses to create one.
  explicit BackendDescriptor(cudnnBackendDescriptorType_t type);
  ~BackendDescriptor() { reset(); }
  BackendDescriptor(BackendDescriptor&& other) noexcept
      : descriptor_(std::exchange(other.descriptor_, nullptr)) {}
  BackendDescriptor& operator=(BackendDescriptor&& other) noexcept {
    if (this != &other) {
      reset();
      descriptor_ = std::exchange(other.descriptor_, nullptr);
    }
    return *this;
  }
  BackendDescriptor(const BackendDescriptor&) = delete;
  BackendDescriptor& operator=(const BackendDescriptor&) = delete;

  cudnnBackendDescriptor_t get() const { return descriptor_; }
  explicit operator bool() const { return descriptor_ != nullptr; }

  cudnnStatus_t set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                    std::int64_t count, const void* values) const;
  template <typename T>
  cudnnStatus_t set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                    const T& value) const {
    return set(name, type, 1, &value);
  }
  cudnnStatus_t set(cudnnBackendAttributeName_t name,
                    const std::vector<std::int64_t>& values) const {
    return set(name, CUDNN_TYPE_INT64, static_cast<std::int64_t>(values.size()), values.data());
  }
  cudnnStatus_t get(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                    std::int64_t requested, std::int64_t* count, void* values) const;
  cudnnStatus_t finalize() const;

 private:
  void reset();
  cudnnBackendDescriptor_t descriptor_ = nullptr;
};

// Reads an attribute of any descriptor, the application's too, as BackendDescriptor::get does.
cudnnStatus_t get_attribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, std::int64_t requested,
                            std::int64_t* count, void* values);

// Whether the library has what ucudnn needs to build and run graphs of its own.
bool has_graph_api(const BackendApi& backend);

}  // namespace ucudnn::cudnn
