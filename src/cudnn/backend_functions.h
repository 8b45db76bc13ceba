#pragma once
// The functions of cuDNN's graph (backend) API, by name only (no cuDNN header): the table
// ucudnn resolves them into (backend_api.h) and the list the shim interposes
// (shim/interposed_functions.h) are both this one list. UCUDNN_CUDNN_BACKEND_FUNCTIONS(X)
// calls X(name) for each.
#define UCUDNN_CUDNN_BACKEND_FUNCTIONS(X) \
  X(cudnnBackendCreateDescriptor)         \
  X(cudnnBackendDestroyDescriptor)        \
  X(cudnnBackendInitialize)               \
  X(cudnnBackendFinalize)                 \
  X(cudnnBackendSetAttribute)             \
  X(cudnnBackendGetAttribute)             \
  X(cudnnBackendExecute)                  \
  X(cudnnBackendPopulateCudaGraph)        \
  X(cudnnBackendUpdateCudaGraph)
