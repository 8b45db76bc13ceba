// The LD_PRELOAD front end: cuDNN's legacy convolution functions under their own names,
// exported with the symbol version "libcudnn.so.9" (preload.map) so that an unmodified
// application linked with -lcudnn binds to these. Nothing that cuDNN's own libraries call
// back (descriptor setters, cudnnGetStream) is exported. The functions are the entries of
// legacy_api_table.h, each checked by the compiler against its declaration in cudnn.h.
#include <cudnn.h>

#include "shim/legacy_api_table.h"

using namespace ucudnn::shim;
using ucudnn::Operation;
namespace cudnn = ucudnn::cudnn;

#define UCUDNN_EXPORT_HANDLE_FUNCTION(name, parameters, call)                          \
  cudnnStatus_t CUDNNWINAPI name(cudnnHandle_t handle, UCUDNN_PARAMETERS parameters) { \
    return call;                                                                       \
  }
#define UCUDNN_EXPORT_LAYER_FUNCTION(name, parameters, call)                           \
  cudnnStatus_t CUDNNWINAPI name(cudnnHandle_t handle, UCUDNN_PARAMETERS parameters) { \
    const std::int64_t layer = kNoLayer;                                               \
    return call;                                                                       \
  }

extern "C" {

UCUDNN_LEGACY_API(UCUDNN_EXPORT_HANDLE_FUNCTION, UCUDNN_EXPORT_LAYER_FUNCTION)

// cuDNN binds a handle to the device current at cudnnCreate: ucudnn records it there.
cudnnStatus_t CUDNNWINAPI cudnnCreate(cudnnHandle_t* handle) {
  return create_handle(handle);
}

cudnnStatus_t CUDNNWINAPI cudnnDestroy(cudnnHandle_t handle) {
  return destroy_handle(handle);
}

}  // extern "C"
