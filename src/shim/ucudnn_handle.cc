// The UcudnnHandle_t front end (libucudnn.so): C++ overloads of cuDNN's convolution functions,
// the entries of shim/legacy_api_table.h taking a UcudnnHandle_t and a trailing layer id. No
// cudnn* C symbol is defined here, so linking this library never interposes on cuDNN by
// accident.
#include "ucudnn/ucudnn.h"

#include <dlfcn.h>

#include "shim/host_time_account.h"
#include "shim/legacy_api_table.h"
#include "shim/log.h"

using namespace ucudnn::shim;
using ucudnn::Operation;
namespace cudnn = ucudnn::cudnn;

cudnnStatus_t UcudnnHandle_t::setBatchSizePolicy(const char* policy) const {
  return set_batch_size_policy(handle_, policy);
}
cudnnStatus_t UcudnnHandle_t::setWorkspaceLimit(std::size_t bytes) const {
  return set_workspace_limit(handle_, bytes);
}
cudnnStatus_t UcudnnHandle_t::setTotalWorkspaceSize(std::size_t bytes) const {
  return set_total_workspace_size(handle_, bytes);
}
cudnnStatus_t UcudnnHandle_t::optimize() const {
  return ucudnn::shim::optimize(handle_);
}

extern "C" cudnnStatus_t ucudnnSetDatabase(const char* path) {
  return set_database(path);
}

extern "C" cudnnStatus_t ucudnnGetRuntimeCallCounts(UcudnnRuntimeCallCounts* measuring,
                                                    UcudnnRuntimeCallCounts* other) {
  return runtime_call_counts(measuring, other);
}

extern "C" cudnnStatus_t ucudnnGetHostTimeAccount(UcudnnHostTime* entries, int capacity,
                                                  int* count) {
  return host_time_account(entries, capacity, count);
}

namespace {

// The preload (LD_PRELOAD, scripts/ucudnn-run) in the same process: each front end then plans on
// its own, with a registry, accounts and exit lines of its own (the README says not to).
void warn_of_the_preload_beside() {
  if (dlsym(RTLD_DEFAULT, "ucudnn_interposer_marker"))
    warn_once("preload-beside-library",
              "this program links libucudnn.so (UcudnnHandle_t) and runs under "
              "libucudnn_preload.so (LD_PRELOAD, ucudnn-run) as well: each plans on its own; run "
              "it without the preload");
}

}  // namespace

cudnnStatus_t cudnnCreate(UcudnnHandle_t* handle) {
  const EntryScope entry(EntryPoint::cudnnCreate);
  static const bool checked = (warn_of_the_preload_beside(), true);
  (void)checked;
  if (!handle) return CUDNN_STATUS_BAD_PARAM;
  cudnnHandle_t created = nullptr;
  const cudnnStatus_t status = create_handle(&created);
  if (status == CUDNN_STATUS_SUCCESS) *handle = UcudnnHandle_t(created);
  return status;
}

cudnnStatus_t cudnnDestroy(UcudnnHandle_t handle) {
  const EntryScope entry(EntryPoint::cudnnDestroy);
  return destroy_handle(handle.get());
}

#define UCUDNN_OVERLOAD_HANDLE_FUNCTION(name, parameters, arguments, call)         \
  cudnnStatus_t name(UcudnnHandle_t ucudnn_handle, UCUDNN_PARAMETERS parameters) { \
    const EntryScope entry(EntryPoint::name);                                      \
    const cudnnHandle_t handle = ucudnn_handle.get();                              \
    return call;                                                                   \
  }
#define UCUDNN_OVERLOAD_LAYER_FUNCTION(name, parameters, arguments, call)        \
  cudnnStatus_t name(UcudnnHandle_t ucudnn_handle, UCUDNN_PARAMETERS parameters, \
                     std::int64_t layer) {                                       \
    const EntryScope entry(EntryPoint::name);                                    \
    const cudnnHandle_t handle = ucudnn_handle.get();                            \
    return call;                                                                 \
  }

UCUDNN_LEGACY_API(UCUDNN_OVERLOAD_HANDLE_FUNCTION, UCUDNN_OVERLOAD_LAYER_FUNCTION)
