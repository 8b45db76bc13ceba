// The cuDNN double's tensor, filter and convolution descriptor functions. Setters check
// their arguments as cuDNN does (positive sizes and strides, known enums): a rejected call
// returns CUDNN_STATUS_BAD_PARAM (CUDNN_STATUS_NOT_SUPPORTED for layouts the double lacks)
// and leaves the descriptor as it was.
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <new>

#include "descriptors.h"

using namespace ucudnn::fakecuda;

namespace {

constexpr int kMaxDims = CUDNN_DIM_MAX;

bool all_positive(const int* values, int count) {
  return values && std::all_of(values, values + count, [](int v) { return v > 0; });
}

bool known_format(cudnnTensorFormat_t format) {
  return format == CUDNN_TENSOR_NCHW || format == CUDNN_TENSOR_NHWC ||
         format == CUDNN_TENSOR_NCHW_VECT_C;
}

// NCHW_VECT_C (vectorized int8) is a real format the double does not model.
cudnnStatus_t set_packed_tensor(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format,
                                cudnnDataType_t type, int nb_dims, const int* dims) {
  if (!alive(desc) || nb_dims < 3 || nb_dims > kMaxDims || !all_positive(dims, nb_dims) ||
      element_bytes(type) == 0 || !known_format(format))
    return CUDNN_STATUS_BAD_PARAM;
  if (format == CUDNN_TENSOR_NCHW_VECT_C) return CUDNN_STATUS_NOT_SUPPORTED;
  desc->dims.assign(dims, dims + nb_dims);
  const auto strides = packed_strides(desc->dims, format);
  desc->strides.assign(strides.begin(), strides.end());
  desc->data_type = type;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t set_strided_tensor(cudnnTensorDescriptor_t desc, cudnnDataType_t type, int nb_dims,
                                 const int* dims, const int* strides) {
  if (!alive(desc) || nb_dims < 3 || nb_dims > kMaxDims || !all_positive(dims, nb_dims) ||
      !all_positive(strides, nb_dims) || element_bytes(type) == 0)
    return CUDNN_STATUS_BAD_PARAM;
  desc->dims.assign(dims, dims + nb_dims);
  desc->strides.assign(strides, strides + nb_dims);
  desc->data_type = type;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t set_filter(cudnnFilterDescriptor_t desc, cudnnDataType_t type,
                         cudnnTensorFormat_t format, int nb_dims, const int* dims) {
  if (!alive(desc) || nb_dims < 3 || nb_dims > kMaxDims || !all_positive(dims, nb_dims) ||
      element_bytes(type) == 0 || !known_format(format))
    return CUDNN_STATUS_BAD_PARAM;
  if (format == CUDNN_TENSOR_NCHW_VECT_C) return CUDNN_STATUS_NOT_SUPPORTED;
  desc->dims.assign(dims, dims + nb_dims);
  desc->data_type = type;
  desc->format = format;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

bool known_compute_type(cudnnDataType_t type) {
  return type == CUDNN_DATA_FLOAT || type == CUDNN_DATA_DOUBLE || type == CUDNN_DATA_HALF ||
         type == CUDNN_DATA_INT32 || type == CUDNN_DATA_BFLOAT16;
}

cudnnStatus_t set_convolution(cudnnConvolutionDescriptor_t desc, int length, const int* padding,
                              const int* stride, const int* dilation, cudnnConvolutionMode_t mode,
                              cudnnDataType_t compute_type) {
  if (!alive(desc) || length < 1 || length > kMaxDims - 2 || !padding ||
      !std::all_of(padding, padding + length, [](int p) { return p >= 0; }) ||
      !all_positive(stride, length) || !all_positive(dilation, length) ||
      (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION) ||
      !known_compute_type(compute_type))
    return CUDNN_STATUS_BAD_PARAM;
  desc->padding.assign(padding, padding + length);
  desc->stride.assign(stride, stride + length);
  desc->dilation.assign(dilation, dilation + length);
  desc->mode = mode;
  desc->compute_type = compute_type;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

template <typename T>
cudnnStatus_t create(T** out) {
  if (!out) return CUDNN_STATUS_BAD_PARAM;
  *out = new (std::nothrow) T{};
  return *out ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED;
}

template <typename T>
cudnnStatus_t destroy(T* object) {
  if (!object) return CUDNN_STATUS_SUCCESS;  // as cuDNN: destroying nothing is fine
  if (!alive(object)) return CUDNN_STATUS_BAD_PARAM;
  object->tag = Tag::kDead;
  delete object;
  return CUDNN_STATUS_SUCCESS;
}

// The output size per spatial dimension, or a status when the shapes do not fit.
cudnnStatus_t output_dims(const cudnnConvolutionStruct* conv, const cudnnTensorStruct* x,
                          const cudnnFilterStruct* w, std::vector<int>* out) {
  if (!alive(conv) || !alive(x) || !alive(w) || !conv->set || !x->set || !w->set)
    return CUDNN_STATUS_BAD_PARAM;
  const std::size_t rank = x->dims.size();
  if (w->dims.size() != rank || conv->padding.size() + 2 != rank) return CUDNN_STATUS_BAD_PARAM;
  if (x->dims[1] != w->dims[1] * conv->groups || w->dims[0] % conv->groups != 0)
    return CUDNN_STATUS_BAD_PARAM;
  out->assign({x->dims[0], w->dims[0]});
  for (std::size_t i = 2; i < rank; ++i) {
    const int span = conv->dilation[i - 2] * (w->dims[i] - 1) + 1;
    const int padded = x->dims[i] + 2 * conv->padding[i - 2];
    if (padded < span) return CUDNN_STATUS_BAD_PARAM;
    out->push_back((padded - span) / conv->stride[i - 2] + 1);
  }
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace

extern "C" {

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* tensorDesc) {
  return create(tensorDesc);
}

cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t tensorDesc) {
  return destroy(tensorDesc);
}

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t tensorDesc,
                                         cudnnTensorFormat_t format, cudnnDataType_t dataType,
                                         int n, int c, int h, int w) {
  const int dims[] = {n, c, h, w};
  return set_packed_tensor(tensorDesc, format, dataType, 4, dims);
}

cudnnStatus_t cudnnSetTensor4dDescriptorEx(cudnnTensorDescriptor_t tensorDesc,
                                           cudnnDataType_t dataType, int n, int c, int h, int w,
                                           int nStride, int cStride, int hStride, int wStride) {
  const int dims[] = {n, c, h, w};
  const int strides[] = {nStride, cStride, hStride, wStride};
  return set_strided_tensor(tensorDesc, dataType, 4, dims, strides);
}

cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t tensorDesc,
                                         cudnnDataType_t dataType, int nbDims, const int dimA[],
                                         const int strideA[]) {
  return set_strided_tensor(tensorDesc, dataType, nbDims, dimA, strideA);
}

cudnnStatus_t cudnnSetTensorNdDescriptorEx(cudnnTensorDescriptor_t tensorDesc,
                                           cudnnTensorFormat_t format, cudnnDataType_t dataType,
                                           int nbDims, const int dimA[]) {
  return set_packed_tensor(tensorDesc, format, dataType, nbDims, dimA);
}

cudnnStatus_t cudnnGetTensor4dDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                         cudnnDataType_t* dataType, int* n, int* c, int* h, int* w,
                                         int* nStride, int* cStride, int* hStride, int* wStride) {
  if (!alive(tensorDesc) || !tensorDesc->set || tensorDesc->dims.size() != 4 || !dataType || !n ||
      !c || !h || !w || !nStride || !cStride || !hStride || !wStride)
    return CUDNN_STATUS_BAD_PARAM;
  const auto& d = tensorDesc->dims;
  const auto& s = tensorDesc->strides;
  *dataType = tensorDesc->data_type;
  *n = d[0], *c = d[1], *h = d[2], *w = d[3];
  *nStride = s[0], *cStride = s[1], *hStride = s[2], *wStride = s[3];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                         int nbDimsRequested, cudnnDataType_t* dataType,
                                         int* nbDims, int dimA[], int strideA[]) {
  if (!alive(tensorDesc) || !tensorDesc->set || nbDimsRequested < 0 || !dataType || !nbDims ||
      (nbDimsRequested > 0 && (!dimA || !strideA)))
    return CUDNN_STATUS_BAD_PARAM;
  const int rank = static_cast<int>(tensorDesc->dims.size());
  *dataType = tensorDesc->data_type;
  *nbDims = rank;
  for (int i = 0; i < std::min(rank, nbDimsRequested); ++i) {
    dimA[i] = tensorDesc->dims[i];
    strideA[i] = tensorDesc->strides[i];
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorSizeInBytes(const cudnnTensorDescriptor_t tensorDesc, size_t* size) {
  if (!alive(tensorDesc) || !tensorDesc->set || !size) return CUDNN_STATUS_BAD_PARAM;
  *size = span_bytes(tensorDesc->dims, {tensorDesc->strides.begin(), tensorDesc->strides.end()},
                     tensorDesc->data_type);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* filterDesc) {
  return create(filterDesc);
}

cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t filterDesc) {
  return destroy(filterDesc);
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t filterDesc,
                                         cudnnDataType_t dataType, cudnnTensorFormat_t format,
                                         int k, int c, int h, int w) {
  const int dims[] = {k, c, h, w};
  return set_filter(filterDesc, dataType, format, 4, dims);
}

cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t filterDesc,
                                         cudnnDataType_t dataType, cudnnTensorFormat_t format,
                                         int nbDims, const int filterDimA[]) {
  return set_filter(filterDesc, dataType, format, nbDims, filterDimA);
}

cudnnStatus_t cudnnGetFilter4dDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                         cudnnDataType_t* dataType, cudnnTensorFormat_t* format,
                                         int* k, int* c, int* h, int* w) {
  if (!alive(filterDesc) || !filterDesc->set || filterDesc->dims.size() != 4 || !dataType ||
      !format || !k || !c || !h || !w)
    return CUDNN_STATUS_BAD_PARAM;
  const auto& d = filterDesc->dims;
  *dataType = filterDesc->data_type;
  *format = filterDesc->format;
  *k = d[0], *c = d[1], *h = d[2], *w = d[3];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                         int nbDimsRequested, cudnnDataType_t* dataType,
                                         cudnnTensorFormat_t* format, int* nbDims,
                                         int filterDimA[]) {
  if (!alive(filterDesc) || !filterDesc->set || nbDimsRequested < 0 || !dataType || !format ||
      !nbDims || (nbDimsRequested > 0 && !filterDimA))
    return CUDNN_STATUS_BAD_PARAM;
  const int rank = static_cast<int>(filterDesc->dims.size());
  *dataType = filterDesc->data_type;
  *format = filterDesc->format;
  *nbDims = rank;
  for (int i = 0; i < std::min(rank, nbDimsRequested); ++i) filterDimA[i] = filterDesc->dims[i];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t* size) {
  if (!alive(filterDesc) || !filterDesc->set || !size) return CUDNN_STATUS_BAD_PARAM;
  *size = span_bytes(filterDesc->dims, packed_strides(filterDesc->dims, filterDesc->format),
                     filterDesc->data_type);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* convDesc) {
  return create(convDesc);
}

cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t convDesc) {
  return destroy(convDesc);
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t convDesc, int pad_h,
                                              int pad_w, int u, int v, int dilation_h,
                                              int dilation_w, cudnnConvolutionMode_t mode,
                                              cudnnDataType_t computeType) {
  const int padding[] = {pad_h, pad_w}, stride[] = {u, v}, dilation[] = {dilation_h, dilation_w};
  return set_convolution(convDesc, 2, padding, stride, dilation, mode, computeType);
}

cudnnStatus_t cudnnSetConvolutionNdDescriptor(cudnnConvolutionDescriptor_t convDesc,
                                              int arrayLength, const int padA[],
                                              const int filterStrideA[], const int dilationA[],
                                              cudnnConvolutionMode_t mode,
                                              cudnnDataType_t computeType) {
  return set_convolution(convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType);
}

cudnnStatus_t cudnnGetConvolution2dDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                              int* pad_h, int* pad_w, int* u, int* v,
                                              int* dilation_h, int* dilation_w,
                                              cudnnConvolutionMode_t* mode,
                                              cudnnDataType_t* computeType) {
  if (!alive(convDesc) || !convDesc->set || convDesc->padding.size() != 2 || !pad_h || !pad_w ||
      !u || !v || !dilation_h || !dilation_w || !mode || !computeType)
    return CUDNN_STATUS_BAD_PARAM;
  *pad_h = convDesc->padding[0], *pad_w = convDesc->padding[1];
  *u = convDesc->stride[0], *v = convDesc->stride[1];
  *dilation_h = convDesc->dilation[0], *dilation_w = convDesc->dilation[1];
  *mode = convDesc->mode;
  *computeType = convDesc->compute_type;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                              int arrayLengthRequested, int* arrayLength,
                                              int padA[], int strideA[], int dilationA[],
                                              cudnnConvolutionMode_t* mode,
                                              cudnnDataType_t* computeType) {
  if (!alive(convDesc) || !convDesc->set || arrayLengthRequested < 0 || !arrayLength || !mode ||
      !computeType || (arrayLengthRequested > 0 && (!padA || !strideA || !dilationA)))
    return CUDNN_STATUS_BAD_PARAM;
  const int length = static_cast<int>(convDesc->padding.size());
  *arrayLength = length;
  for (int i = 0; i < std::min(length, arrayLengthRequested); ++i) {
    padA[i] = convDesc->padding[i];
    strideA[i] = convDesc->stride[i];
    dilationA[i] = convDesc->dilation[i];
  }
  *mode = convDesc->mode;
  *computeType = convDesc->compute_type;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int groupCount) {
  if (!alive(convDesc) || groupCount < 1) return CUDNN_STATUS_BAD_PARAM;
  convDesc->groups = groupCount;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc,
                                            int* groupCount) {
  if (!alive(convDesc) || !groupCount) return CUDNN_STATUS_BAD_PARAM;
  *groupCount = convDesc->groups;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                          cudnnMathType_t mathType) {
  if (!alive(convDesc) || mathType < CUDNN_DEFAULT_MATH || mathType > CUDNN_FMA_MATH)
    return CUDNN_STATUS_BAD_PARAM;
  convDesc->math_type = mathType;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc,
                                          cudnnMathType_t* mathType) {
  if (!alive(convDesc) || !mathType) return CUDNN_STATUS_BAD_PARAM;
  *mathType = convDesc->math_type;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                             cudnnReorderType_t reorderType) {
  if (!alive(convDesc) || (reorderType != CUDNN_DEFAULT_REORDER && reorderType != CUDNN_NO_REORDER))
    return CUDNN_STATUS_BAD_PARAM;
  convDesc->reorder = reorderType;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionReorderType(cudnnConvolutionDescriptor_t convDesc,
                                             cudnnReorderType_t* reorderType) {
  if (!alive(convDesc) || !reorderType) return CUDNN_STATUS_BAD_PARAM;
  *reorderType = convDesc->reorder;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc,
                                                    int* n, int* c, int* h, int* w) {
  if (!n || !c || !h || !w || !alive(inputTensorDesc) || inputTensorDesc->dims.size() != 4)
    return CUDNN_STATUS_BAD_PARAM;
  std::vector<int> dims;
  if (cudnnStatus_t status = output_dims(convDesc, inputTensorDesc, filterDesc, &dims);
      status != CUDNN_STATUS_SUCCESS)
    return status;
  *n = dims[0], *c = dims[1], *h = dims[2], *w = dims[3];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc,
                                                    int nbDims, int tensorOuputDimA[]) {
  if (!tensorOuputDimA || !alive(inputTensorDesc) ||
      nbDims != static_cast<int>(inputTensorDesc->dims.size()))
    return CUDNN_STATUS_BAD_PARAM;
  std::vector<int> dims;
  if (cudnnStatus_t status = output_dims(convDesc, inputTensorDesc, filterDesc, &dims);
      status != CUDNN_STATUS_SUCCESS)
    return status;
  std::copy(dims.begin(), dims.end(), tensorOuputDimA);
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
