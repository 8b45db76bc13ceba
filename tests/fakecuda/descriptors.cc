#include "descriptors.h"

#include <algorithm>

namespace ucudnn::fakecuda {

std::vector<std::int64_t> packed_strides(const std::vector<int>& dims, cudnnTensorFormat_t format) {
  const std::size_t rank = dims.size();
  std::vector<std::int64_t> strides(rank, 1);
  if (format == CUDNN_TENSOR_NHWC && rank >= 3) {
    // From innermost: C, then the last spatial dimension ... the first, then N.
    std::int64_t running = dims[1];
    for (std::size_t i = rank; i-- > 2;) {
      strides[i] = running;
      running *= dims[i];
    }
    strides[1] = 1;
    strides[0] = running;
    return strides;
  }
  for (std::size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

std::size_t element_bytes(cudnnDataType_t type) {
  switch (type) {
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_INT64:
      return 8;
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_INT32:
      return 4;
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
      return 2;
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_FP8_E4M3:
    case CUDNN_DATA_FP8_E5M2:
      return 1;
    default:
      return 0;
  }
}

std::size_t span_bytes(const std::vector<int>& dims, const std::vector<std::int64_t>& strides,
                       cudnnDataType_t type) {
  if (dims.empty()) return 0;
  std::int64_t last = 0;
  for (std::size_t i = 0; i < dims.size(); ++i)
    last += (dims[i] - 1) * (strides[i] < 0 ? -strides[i] : strides[i]);
  return static_cast<std::size_t>(last + 1) * element_bytes(type);
}

cudnnStatus_t output_dims(const cudnnConvolutionStruct* conv, const cudnnTensorStruct* x,
                          const cudnnFilterStruct* w, std::size_t count, std::vector<int>* out) {
  if (!alive(conv) || !alive(x) || !alive(w) || !conv->set || !x->set || !w->set)
    return CUDNN_STATUS_BAD_PARAM;
  const std::size_t rank = x->dims.size();
  if (rank < 3 || w->dims.size() != rank || conv->padding.size() + 2 != rank)
    return CUDNN_STATUS_BAD_PARAM;
  // K divisible by the group count is checked at use, not here (as cuDNN).
  if (x->dims[1] != w->dims[1] * conv->groups) return CUDNN_STATUS_BAD_PARAM;
  out->assign({x->dims[0], w->dims[0]});
  for (std::size_t i = 2; i < std::min(rank, count); ++i) {
    const int span = conv->dilation[i - 2] * (w->dims[i] - 1) + 1;
    const int padded = x->dims[i] + 2 * conv->padding[i - 2];
    if (padded < span) return CUDNN_STATUS_BAD_PARAM;
    out->push_back((padded - span) / conv->stride[i - 2] + 1);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace ucudnn::fakecuda
