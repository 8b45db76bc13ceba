#include "cudnn/backend_api.h"

#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

const BackendApi& backend_api() {
  // Never destroyed, as cudnn_api().
  static const BackendApi& api = *new BackendApi(BackendApi::resolve(cudnn_symbol));
  return api;
}

std::size_t backend_element_size(cudnnBackendAttributeType_t type) {
  switch (type) {
    case CUDNN_TYPE_HANDLE:
    case CUDNN_TYPE_VOID_PTR:
    case CUDNN_TYPE_BACKEND_DESCRIPTOR:
    case CUDNN_TYPE_INT64:
    case CUDNN_TYPE_DOUBLE:
      return 8;
    case CUDNN_TYPE_BOOLEAN:
    case CUDNN_TYPE_CHAR:
      return 1;
    case CUDNN_TYPE_FRACTION:
      return 16;
    case CUDNN_TYPE_DATA_TYPE:
    case CUDNN_TYPE_FLOAT:
    case CUDNN_TYPE_CONVOLUTION_MODE:
    case CUDNN_TYPE_HEUR_MODE:
    case CUDNN_TYPE_KNOB_TYPE:
    case CUDNN_TYPE_NUMERICAL_NOTE:
    case CUDNN_TYPE_LAYOUT_TYPE:
    case CUDNN_TYPE_ATTRIB_NAME:
    case CUDNN_TYPE_POINTWISE_MODE:
    case CUDNN_TYPE_GENSTATS_MODE:
    case CUDNN_TYPE_BN_FINALIZE_STATS_MODE:
    case CUDNN_TYPE_REDUCTION_OPERATOR_TYPE:
    case CUDNN_TYPE_BEHAVIOR_NOTE:
    case CUDNN_TYPE_TENSOR_REORDERING_MODE:
    case CUDNN_TYPE_RESAMPLE_MODE:
    case CUDNN_TYPE_PADDING_MODE:
    case CUDNN_TYPE_INT32:
    case CUDNN_TYPE_SIGNAL_MODE:
    case CUDNN_TYPE_NORM_MODE:
    case CUDNN_TYPE_NORM_FWD_PHASE:
    case CUDNN_TYPE_RNG_DISTRIBUTION:
    case CUDNN_TYPE_MOE_GROUPED_MATMUL_MODE:
      return 4;
    default:
      return 0;
  }
}

}  // namespace ucudnn::cudnn
