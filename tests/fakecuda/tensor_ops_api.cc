// The cuDNN double's tensor operations that a fused convolution is made of: activation
// descriptors, cudnnActivationForward, cudnnAddTensor (with broadcasting of size-1
// dimensions, as for a bias) and cudnnTransformTensor (same dims, any strides). Float and
// double, computed in double; dst = alpha * op(src) + beta * dst, with beta = 0 never
// reading dst (cuDNN's rule: NaN in an output is overwritten).
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include "descriptors.h"
#include "fakecuda_hooks.h"
#include "stream_work.h"
#include "tensor_ops.h"

using namespace ucudnn::fakecuda;

namespace ucudnn::fakecuda {

double read_element(const void* data, cudnnDataType_t type, std::int64_t offset) {
  return type == CUDNN_DATA_DOUBLE ? static_cast<const double*>(data)[offset]
                                   : static_cast<const float*>(data)[offset];
}

void write_element(void* data, cudnnDataType_t type, std::int64_t offset, double value) {
  if (type == CUDNN_DATA_DOUBLE)
    static_cast<double*>(data)[offset] = value;
  else
    static_cast<float*>(data)[offset] = static_cast<float>(value);
}

std::int64_t element_count(const std::vector<int>& dims) {
  std::int64_t count = 1;
  for (int d : dims) count *= d;
  return count;
}

std::int64_t offset_of(std::int64_t index, const std::vector<int>& dims,
                       const std::vector<int>& strides, const std::vector<int>& of_dims) {
  // `index` walks `dims` row-major; a dimension of size 1 in of_dims broadcasts.
  std::int64_t offset = 0;
  for (std::size_t d = dims.size(); d-- > 0;) {
    const std::int64_t i = index % dims[d];
    index /= dims[d];
    if (of_dims[d] != 1) offset += i * strides[d];
  }
  return offset;
}

double activate(const cudnnActivationStruct& a, double value) {
  switch (a.mode) {
    case CUDNN_ACTIVATION_RELU:
      return std::isnan(value) ? value : std::max(value, 0.0);
    case CUDNN_ACTIVATION_CLIPPED_RELU:
      return std::min(std::max(value, 0.0), a.coef);
    case CUDNN_ACTIVATION_SIGMOID:
      return 1 / (1 + std::exp(-value));
    case CUDNN_ACTIVATION_TANH:
      return std::tanh(value);
    case CUDNN_ACTIVATION_ELU:
      return value >= 0 ? value : a.coef * (std::exp(value) - 1);
    default:
      return value;  // IDENTITY
  }
}

bool usable(const cudnnTensorStruct* t) {
  return alive(t) && t->set &&
         (t->data_type == CUDNN_DATA_FLOAT || t->data_type == CUDNN_DATA_DOUBLE);
}

}  // namespace ucudnn::fakecuda

namespace {

double scalar(const void* value, cudnnDataType_t type) {
  return type == CUDNN_DATA_DOUBLE ? *static_cast<const double*>(value)
                                   : static_cast<double>(*static_cast<const float*>(value));
}

bool on_device(const cudnnTensorStruct* t, const void* data) {
  std::vector<std::int64_t> strides(t->strides.begin(), t->strides.end());
  return data && fakecuda_find_allocation(data, span_bytes(t->dims, strides, t->data_type));
}

// dst = alpha * f(src) + beta * dst elementwise over dst's dims; src broadcasts its size-1
// dimensions.
template <typename F>
cudnnStatus_t elementwise(cudnnHandle_t handle, const void* alpha, const cudnnTensorStruct* src,
                          const void* src_data, const void* beta, const cudnnTensorStruct* dst,
                          void* dst_data, bool broadcast, F f) {
  if (!alive(handle) || !alpha || !beta || !usable(src) || !usable(dst))
    return CUDNN_STATUS_BAD_PARAM;
  if (src->data_type != dst->data_type || src->dims.size() != dst->dims.size())
    return CUDNN_STATUS_BAD_PARAM;
  for (std::size_t d = 0; d < dst->dims.size(); ++d)
    if (src->dims[d] != dst->dims[d] && !(broadcast && src->dims[d] == 1))
      return CUDNN_STATUS_BAD_PARAM;
  if (!on_device(src, src_data) || !on_device(dst, dst_data)) return CUDNN_STATUS_BAD_PARAM;
  const cudnnDataType_t type = dst->data_type;
  const double a = scalar(alpha, type), b = scalar(beta, type);
  const cudnnTensorStruct s = *src, t = *dst;
  run_on_stream(handle->stream, [=] {
    const std::int64_t count = element_count(t.dims);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t from = offset_of(i, t.dims, s.strides, s.dims);
      const std::int64_t to = offset_of(i, t.dims, t.strides, t.dims);
      const double value = a * f(read_element(src_data, type, from));
      write_element(dst_data, type, to,
                    b == 0 ? value : value + b * read_element(dst_data, type, to));
    }
  });
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* activationDesc) {
  if (!activationDesc) return CUDNN_STATUS_BAD_PARAM;
  *activationDesc = new (std::nothrow) cudnnActivationStruct{};
  return *activationDesc ? CUDNN_STATUS_SUCCESS
                         : CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
}

cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t activationDesc,
                                           cudnnActivationMode_t mode,
                                           cudnnNanPropagation_t reluNanOpt, double coef) {
  if (!alive(activationDesc)) return CUDNN_STATUS_BAD_PARAM;
  if (mode < CUDNN_ACTIVATION_SIGMOID || mode > CUDNN_ACTIVATION_SWISH ||
      (reluNanOpt != CUDNN_NOT_PROPAGATE_NAN && reluNanOpt != CUDNN_PROPAGATE_NAN))
    return CUDNN_STATUS_BAD_PARAM;
  if (mode == CUDNN_ACTIVATION_SWISH) return CUDNN_STATUS_NOT_SUPPORTED;
  activationDesc->mode = mode;
  activationDesc->nan = reluNanOpt;
  activationDesc->coef = coef;
  activationDesc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetActivationDescriptor(const cudnnActivationDescriptor_t activationDesc,
                                           cudnnActivationMode_t* mode,
                                           cudnnNanPropagation_t* reluNanOpt, double* coef) {
  if (!alive(activationDesc) || !mode || !reluNanOpt || !coef) return CUDNN_STATUS_BAD_PARAM;
  *mode = activationDesc->mode;
  *reluNanOpt = activationDesc->nan;
  *coef = activationDesc->coef;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t activationDesc) {
  if (!activationDesc) return CUDNN_STATUS_SUCCESS;
  if (!alive(activationDesc)) return CUDNN_STATUS_BAD_PARAM;
  activationDesc->tag = Tag::kDead;
  delete activationDesc;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnActivationForward(cudnnHandle_t handle,
                                     cudnnActivationDescriptor_t activationDesc, const void* alpha,
                                     const cudnnTensorDescriptor_t xDesc, const void* x,
                                     const void* beta, const cudnnTensorDescriptor_t yDesc,
                                     void* y) {
  if (!alive(activationDesc) || !activationDesc->set) return CUDNN_STATUS_BAD_PARAM;
  // cuDNN's activation functions reject IDENTITY: it exists for the fused convolution only.
  if (activationDesc->mode == CUDNN_ACTIVATION_IDENTITY) return CUDNN_STATUS_BAD_PARAM;
  const cudnnActivationStruct activation = *activationDesc;
  return elementwise(handle, alpha, xDesc, x, beta, yDesc, y, false,
                     [activation](double v) { return activate(activation, v); });
}

cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void* alpha,
                             const cudnnTensorDescriptor_t aDesc, const void* A, const void* beta,
                             const cudnnTensorDescriptor_t cDesc, void* C) {
  return elementwise(handle, alpha, aDesc, A, beta, cDesc, C, true, [](double v) { return v; });
}

cudnnStatus_t cudnnTransformTensor(cudnnHandle_t handle, const void* alpha,
                                   const cudnnTensorDescriptor_t xDesc, const void* x,
                                   const void* beta, const cudnnTensorDescriptor_t yDesc, void* y) {
  return elementwise(handle, alpha, xDesc, x, beta, yDesc, y, false, [](double v) { return v; });
}

}  // extern "C"
