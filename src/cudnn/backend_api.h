#pragma once
// cuDNN's graph (backend) API as ucudnn calls it: resolved at run time from the same library
// as the legacy functions (cudnn_api.h), in a table of its own so that a library without it
// still plans legacy calls. And what an attribute's element type occupies, for copying
// attributes the application sets.
#include <cudnn.h>

#include <cstddef>

#include "cudnn/backend_functions.h"
#include "cudnn/function_table.h"

namespace ucudnn::cudnn {

UCUDNN_FUNCTION_TABLE(BackendApi, UCUDNN_CUDNN_BACKEND_FUNCTIONS)

// Resolved once, on first use, thread-safely, from cudnn_api()'s library.
const BackendApi& backend_api();

// Bytes of one element of an attribute of `type` (cudnn_graph.h's types); 0 for a type this
// build does not know.
std::size_t backend_element_size(cudnnBackendAttributeType_t type);

}  // namespace ucudnn::cudnn
