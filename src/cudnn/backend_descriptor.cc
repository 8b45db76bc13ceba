#include "cudnn/backend_descriptor.h"

namespace ucudnn::cudnn {

bool has_graph_api(const BackendApi& b) {
  return b.cudnnBackendCreateDescriptor && b.cudnnBackendDestroyDescriptor &&
         b.cudnnBackendSetAttribute && b.cudnnBackendGetAttribute && b.cudnnBackendFinalize &&
         b.cudnnBackendExecute;
}

BackendDescriptor::BackendDescriptor(cudnnBackendDescriptorType_t type) {
  const BackendApi& b = backend_api();
  if (!has_graph_api(b)) return;
  if (b.cudnnBackendCreateDescriptor(type, &descriptor_) != CUDNN_STATUS_SUCCESS)
    descriptor_ = nullptr;
}

void BackendDescriptor::reset() {
  if (!descriptor_) return;
  backend_api().cudnnBackendDestroyDescriptor(std::exchange(descriptor_, nullptr));
}

cudnnStatus_t BackendDescriptor::set(cudnnBackendAttributeName_t name,
                                     cudnnBackendAttributeType_t type, std::int64_t count,
                                     const void* values) const {
  if (!descriptor_) return CUDNN_STATUS_NOT_INITIALIZED;
  return backend_api().cudnnBackendSetAttribute(descriptor_, name, type, count, values);
}

cudnnStatus_t get_attribute(cudnnBackendDescriptor_t descriptor, cudnnBackendAttributeName_t name,
                            cudnnBackendAttributeType_t type, std::int64_t requested,
                            std::int64_t* count, void* values) {
  const auto get = backend_api().cudnnBackendGetAttribute;
  if (!descriptor || !get) return CUDNN_STATUS_NOT_INITIALIZED;
  return get(descriptor, name, type, requested, count, values);
}

cudnnStatus_t BackendDescriptor::get(cudnnBackendAttributeName_t name,
                                     cudnnBackendAttributeType_t type, std::int64_t requested,
                                     std::int64_t* count, void* values) const {
  return get_attribute(descriptor_, name, type, requested, count, values);
}

cudnnStatus_t BackendDescriptor::finalize() const {
  if (!descriptor_) return CUDNN_STATUS_NOT_INITIALIZED;
  return backend_api().cudnnBackendFinalize(descriptor_);
}

}  // namespace ucudnn::cudnn
