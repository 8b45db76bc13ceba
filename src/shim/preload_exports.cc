// The LD_PRELOAD front end: cuDNN's legacy convolution functions under their own names,
// exported with the symbol version "libcudnn.so.9" (preload.map) so that an unmodified
// application linked with -lcudnn binds to these. Nothing that cuDNN's own libraries call
// back (descriptor setters, cudnnGetStream) is exported. The functions are the entries of
// legacy_api_table.h, each checked by the compiler against its declaration in cudnn.h.
#include <cudnn.h>

#include "ucudnn/host_time_account.h"
#include "ucudnn/runtime_call_counts.h"

#include "shim/backend/backend_calls.h"
#include "shim/host_time_account.h"
#include "shim/legacy_api_table.h"
#include "shim/reentry.h"

using namespace ucudnn::shim;
using ucudnn::Operation;
namespace cudnn = ucudnn::cudnn;

// Opens every export: a call that came back from inside ucudnn's own call to cuDNN goes
// straight to cuDNN (reentry.h), before ucudnn looks at it.
#define UCUDNN_ENTER(name, ...)                                                            \
  const Reentry reentry;                                                                   \
  if (reentry.nested())                                                                    \
    return pass_to_cudnn<decltype(&::name)>(EntryPoint::name, __builtin_return_address(0), \
                                            __VA_ARGS__);                                  \
  const EntryScope entry(EntryPoint::name)

#define UCUDNN_EXPORT_HANDLE_FUNCTION(name, parameters, arguments, call)               \
  cudnnStatus_t CUDNNWINAPI name(cudnnHandle_t handle, UCUDNN_PARAMETERS parameters) { \
    UCUDNN_ENTER(name, handle, UCUDNN_PARAMETERS arguments);                           \
    return call;                                                                       \
  }
#define UCUDNN_EXPORT_LAYER_FUNCTION(name, parameters, arguments, call)                \
  cudnnStatus_t CUDNNWINAPI name(cudnnHandle_t handle, UCUDNN_PARAMETERS parameters) { \
    UCUDNN_ENTER(name, handle, UCUDNN_PARAMETERS arguments);                           \
    const std::int64_t layer = kNoLayer;                                               \
    return call;                                                                       \
  }

extern "C" {

UCUDNN_LEGACY_API(UCUDNN_EXPORT_HANDLE_FUNCTION, UCUDNN_EXPORT_LAYER_FUNCTION)

// cuDNN binds a handle to the device current at cudnnCreate: ucudnn records it there.
cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t* handle) {
  UCUDNN_ENTER(cudnnCreate, handle);
  return create_handle(handle);
}

cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle) {
  UCUDNN_ENTER(cudnnDestroy, handle);
  return destroy_handle(handle);
}

// The graph (backend) API: recorded, and convolution plans micro-batched (backend_calls.h).
cudnnStatus_t CUDNNWINAPI cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
                                                       cudnnBackendDescriptor_t* descriptor) {
  UCUDNN_ENTER(cudnnBackendCreateDescriptor, descriptorType, descriptor);
  return backend::create_descriptor(descriptorType, descriptor);
}

cudnnStatus_t CUDNNWINAPI cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor) {
  UCUDNN_ENTER(cudnnBackendDestroyDescriptor, descriptor);
  return backend::destroy_descriptor(descriptor);
}

cudnnStatus_t CUDNNWINAPI cudnnBackendInitialize(cudnnBackendDescriptor_t descriptor) {
  UCUDNN_ENTER(cudnnBackendInitialize, descriptor);
  return backend::initialize(descriptor);
}

cudnnStatus_t CUDNNWINAPI cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor) {
  UCUDNN_ENTER(cudnnBackendFinalize, descriptor);
  return backend::finalize(descriptor, __builtin_return_address(0));
}

cudnnStatus_t CUDNNWINAPI cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType,
                                                   int64_t elementCount,
                                                   const void* arrayOfElements) {
  UCUDNN_ENTER(cudnnBackendSetAttribute, descriptor, attributeName, attributeType, elementCount,
               arrayOfElements);
  return backend::set_attribute(descriptor, attributeName, attributeType, elementCount,
                                arrayOfElements);
}

cudnnStatus_t CUDNNWINAPI cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
                                                   cudnnBackendAttributeName_t attributeName,
                                                   cudnnBackendAttributeType_t attributeType,
                                                   int64_t requestedElementCount,
                                                   int64_t* elementCount, void* arrayOfElements) {
  UCUDNN_ENTER(cudnnBackendGetAttribute, descriptor, attributeName, attributeType,
               requestedElementCount, elementCount, arrayOfElements);
  return backend::get_attribute(descriptor, attributeName, attributeType, requestedElementCount,
                                elementCount, arrayOfElements);
}

cudnnStatus_t CUDNNWINAPI cudnnBackendExecute(cudnnHandle_t handle,
                                              cudnnBackendDescriptor_t executionPlan,
                                              cudnnBackendDescriptor_t variantPack) {
  UCUDNN_ENTER(cudnnBackendExecute, handle, executionPlan, variantPack);
  return backend::execute(handle, executionPlan, variantPack);
}

cudnnStatus_t CUDNNWINAPI cudnnBackendPopulateCudaGraph(cudnnHandle_t handle,
                                                        cudnnBackendDescriptor_t executionPlan,
                                                        cudnnBackendDescriptor_t variantPack,
                                                        cudaGraph_t graph) {
  UCUDNN_ENTER(cudnnBackendPopulateCudaGraph, handle, executionPlan, variantPack, graph);
  return backend::populate_cuda_graph(handle, executionPlan, variantPack, graph);
}

cudnnStatus_t CUDNNWINAPI cudnnBackendUpdateCudaGraph(cudnnHandle_t handle,
                                                      cudnnBackendDescriptor_t executionPlan,
                                                      cudnnBackendDescriptor_t variantPack,
                                                      cudaGraph_t graph) {
  UCUDNN_ENTER(cudnnBackendUpdateCudaGraph, handle, executionPlan, variantPack, graph);
  return backend::update_cuda_graph(handle, executionPlan, variantPack, graph);
}

cudnnStatus_t ucudnnGetRuntimeCallCounts(UcudnnRuntimeCallCounts* measuring,
                                         UcudnnRuntimeCallCounts* other) {
  return runtime_call_counts(measuring, other);
}

cudnnStatus_t ucudnnGetHostTimeAccount(UcudnnHostTime* entries, int capacity, int* count) {
  return host_time_account(entries, capacity, count);
}

// What tells ucudnn apart from the library it interposes on, under any file name
// (cudnn/runtime_library.cc refuses to resolve "the real cuDNN" to a library that has it).
extern const char ucudnn_interposer_marker[];
const char ucudnn_interposer_marker[] = "ucudnn";

}  // extern "C"
