// The cuDNN double's tensor, filter and convolution descriptor functions, answering as cuDNN
// 9.19 does (descriptor_differential_test.cc compares them with the real library). cuDNN 9
// checks little when a descriptor is set and the rest when it is used: enums first, then the
// rank (over CUDNN_DIM_MAX is CUDNN_STATUS_NOT_SUPPORTED), then sizes. It accepts 2-d tensors,
// negative strides and zero strides on dimensions of size 1, convolutions with no spatial
// dimension, and reads unset descriptors back as empty. A rejected call leaves the descriptor as
// it was. What a convolution cannot use is refused when it runs (kernel_from_descriptors.cc).
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <new>

#include "descriptors.h"

using namespace ucudnn::fakecuda;

namespace {

constexpr int kMaxDims = CUDNN_DIM_MAX;
constexpr int kMaxSpatialDims = CUDNN_DIM_MAX - 2;

bool all_positive(const int* values, int count) {
  return values && std::all_of(values, values + count, [](int v) { return v > 0; });
}

// A zero stride would alias elements, except on a dimension of size 1.
bool usable_strides(const int* dims, const int* strides, int count) {
  if (!strides) return false;
  for (int i = 0; i < count; ++i)
    if (strides[i] == 0 && dims[i] > 1) return false;
  return true;
}

// The data types cuDNN 9.19's legacy descriptors take; filters refuse INT32.
bool tensor_type(cudnnDataType_t type) {
  switch (type) {
    case CUDNN_DATA_FLOAT:
    case CUDNN_DATA_DOUBLE:
    case CUDNN_DATA_HALF:
    case CUDNN_DATA_BFLOAT16:
    case CUDNN_DATA_INT8:
    case CUDNN_DATA_UINT8:
    case CUDNN_DATA_INT32:
      return true;
    default:
      return false;
  }
}

bool filter_type(cudnnDataType_t type) {
  return tensor_type(type) && type != CUDNN_DATA_INT32;
}

bool known_format(cudnnTensorFormat_t format) {
  return format == CUDNN_TENSOR_NCHW || format == CUDNN_TENSOR_NHWC ||
         format == CUDNN_TENSOR_NCHW_VECT_C;
}

// NCHW_VECT_C (vectorized int8) is a real format the double does not model.
cudnnStatus_t set_packed_tensor(cudnnTensorDescriptor_t desc, cudnnTensorFormat_t format,
                                cudnnDataType_t type, int nb_dims, const int* dims) {
  if (!alive(desc) || !tensor_type(type) || !known_format(format)) return CUDNN_STATUS_BAD_PARAM;
  if (nb_dims > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  if (nb_dims < 2 || !all_positive(dims, nb_dims)) return CUDNN_STATUS_BAD_PARAM;
  if (format == CUDNN_TENSOR_NCHW_VECT_C) return CUDNN_STATUS_NOT_SUPPORTED;
  // cuDNN 9.19 gives a channels-last tensor without spatial dimensions an uninitialized N
  // stride (undefined behaviour); the double refuses it.
  if (format == CUDNN_TENSOR_NHWC && nb_dims < 3) return CUDNN_STATUS_BAD_PARAM;
  desc->dims.assign(dims, dims + nb_dims);
  const auto strides = packed_strides(desc->dims, format);
  desc->strides.assign(strides.begin(), strides.end());
  desc->data_type = type;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t set_strided_tensor(cudnnTensorDescriptor_t desc, cudnnDataType_t type, int nb_dims,
                                 const int* dims, const int* strides) {
  if (!alive(desc) || !tensor_type(type)) return CUDNN_STATUS_BAD_PARAM;
  if (nb_dims > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  if (nb_dims < 2 || !all_positive(dims, nb_dims) || !usable_strides(dims, strides, nb_dims))
    return CUDNN_STATUS_BAD_PARAM;
  desc->dims.assign(dims, dims + nb_dims);
  desc->strides.assign(strides, strides + nb_dims);
  desc->data_type = type;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t set_filter(cudnnFilterDescriptor_t desc, cudnnDataType_t type,
                         cudnnTensorFormat_t format, int nb_dims, const int* dims) {
  if (!alive(desc) || !filter_type(type) || !known_format(format)) return CUDNN_STATUS_BAD_PARAM;
  if (nb_dims > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  if (nb_dims < 3 || !all_positive(dims, nb_dims)) return CUDNN_STATUS_BAD_PARAM;
  if (format == CUDNN_TENSOR_NCHW_VECT_C) return CUDNN_STATUS_NOT_SUPPORTED;
  desc->dims.assign(dims, dims + nb_dims);
  desc->data_type = type;
  desc->format = format;
  desc->set = true;
  return CUDNN_STATUS_SUCCESS;
}

// cuDNN 9.19 refuses CUDNN_DATA_BFLOAT16 as a convolution's compute type.
bool known_compute_type(cudnnDataType_t type) {
  return type == CUDNN_DATA_FLOAT || type == CUDNN_DATA_DOUBLE || type == CUDNN_DATA_HALF ||
         type == CUDNN_DATA_INT32;
}

cudnnStatus_t set_convolution(cudnnConvolutionDescriptor_t desc, int length, const int* padding,
                              const int* stride, const int* dilation, cudnnConvolutionMode_t mode,
                              cudnnDataType_t compute_type) {
  if (!alive(desc) || (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION) ||
      !known_compute_type(compute_type))
    return CUDNN_STATUS_BAD_PARAM;
  if (length > kMaxSpatialDims) return CUDNN_STATUS_NOT_SUPPORTED;
  if (length < 0 || (length > 0 && !padding) ||
      !std::all_of(padding, padding + length, [](int p) { return p >= 0; }) ||
      (length > 0 && (!all_positive(stride, length) || !all_positive(dilation, length))))
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
  if (!alive(tensorDesc) || !dataType || !n || !c || !h || !w || !nStride || !cStride || !hStride ||
      !wStride)
    return CUDNN_STATUS_BAD_PARAM;
  // Any rank reads back: its first four dimensions, zeros for those it lacks (as cuDNN).
  const auto& d = tensorDesc->dims;
  const auto& s = tensorDesc->strides;
  int* const dims[] = {n, c, h, w};
  int* const strides[] = {nStride, cStride, hStride, wStride};
  for (std::size_t i = 0; i < 4; ++i) {
    *dims[i] = i < d.size() ? d[i] : 0;
    *strides[i] = i < s.size() ? s[i] : 0;
  }
  *dataType = tensorDesc->data_type;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc,
                                         int nbDimsRequested, cudnnDataType_t* dataType,
                                         int* nbDims, int dimA[], int strideA[]) {
  if (!alive(tensorDesc) || nbDimsRequested < 0 || !dataType || !nbDims ||
      (nbDimsRequested > 0 && (!dimA || !strideA)))
    return CUDNN_STATUS_BAD_PARAM;
  if (nbDimsRequested > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
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
  if (!alive(tensorDesc) || !size) return CUDNN_STATUS_BAD_PARAM;
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
  if (!alive(filterDesc) || !dataType || !format || !k || !c || !h || !w)
    return CUDNN_STATUS_BAD_PARAM;
  const auto& d = filterDesc->dims;
  int* const dims[] = {k, c, h, w};
  for (std::size_t i = 0; i < 4; ++i) *dims[i] = i < d.size() ? d[i] : 0;
  *dataType = filterDesc->data_type;
  *format = filterDesc->format;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc,
                                         int nbDimsRequested, cudnnDataType_t* dataType,
                                         cudnnTensorFormat_t* format, int* nbDims,
                                         int filterDimA[]) {
  if (!alive(filterDesc) || nbDimsRequested < 0 || !dataType || !format || !nbDims ||
      (nbDimsRequested > 0 && !filterDimA))
    return CUDNN_STATUS_BAD_PARAM;
  if (nbDimsRequested > kMaxDims) return CUDNN_STATUS_NOT_SUPPORTED;
  const int rank = static_cast<int>(filterDesc->dims.size());
  *dataType = filterDesc->data_type;
  *format = filterDesc->format;
  *nbDims = rank;
  for (int i = 0; i < std::min(rank, nbDimsRequested); ++i) filterDimA[i] = filterDesc->dims[i];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterSizeInBytes(const cudnnFilterDescriptor_t filterDesc, size_t* size) {
  if (!alive(filterDesc) || !size) return CUDNN_STATUS_BAD_PARAM;
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
  if (!alive(convDesc) || !pad_h || !pad_w || !u || !v || !dilation_h || !dilation_w || !mode ||
      !computeType)
    return CUDNN_STATUS_BAD_PARAM;
  // Any length reads back: the first two spatial dimensions, zeros for those it lacks.
  const auto at = [](const std::vector<int>& values, std::size_t i) {
    return i < values.size() ? values[i] : 0;
  };
  *pad_h = at(convDesc->padding, 0), *pad_w = at(convDesc->padding, 1);
  *u = at(convDesc->stride, 0), *v = at(convDesc->stride, 1);
  *dilation_h = at(convDesc->dilation, 0), *dilation_w = at(convDesc->dilation, 1);
  *mode = convDesc->mode;
  *computeType = convDesc->compute_type;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
                                              int arrayLengthRequested, int* arrayLength,
                                              int padA[], int strideA[], int dilationA[],
                                              cudnnConvolutionMode_t* mode,
                                              cudnnDataType_t* computeType) {
  if (!alive(convDesc) || arrayLengthRequested < 0 || !arrayLength || !mode || !computeType ||
      (arrayLengthRequested > 0 && (!padA || !strideA || !dilationA)))
    return CUDNN_STATUS_BAD_PARAM;
  if (arrayLengthRequested > kMaxSpatialDims) return CUDNN_STATUS_NOT_SUPPORTED;
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
  if (cudnnStatus_t status = output_dims(convDesc, inputTensorDesc, filterDesc, 4, &dims);
      status != CUDNN_STATUS_SUCCESS)
    return status;
  *n = dims[0], *c = dims[1], *h = dims[2], *w = dims[3];
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(const cudnnConvolutionDescriptor_t convDesc,
                                                    const cudnnTensorDescriptor_t inputTensorDesc,
                                                    const cudnnFilterDescriptor_t filterDesc,
                                                    int nbDims, int tensorOuputDimA[]) {
  // Fewer dimensions than the tensor has are fine: the first nbDims are written (as cuDNN).
  if (!tensorOuputDimA || !alive(inputTensorDesc) || nbDims < 1 ||
      nbDims > static_cast<int>(inputTensorDesc->dims.size()))
    return CUDNN_STATUS_BAD_PARAM;
  std::vector<int> dims;
  if (cudnnStatus_t status = output_dims(convDesc, inputTensorDesc, filterDesc,
                                         static_cast<std::size_t>(nbDims), &dims);
      status != CUDNN_STATUS_SUCCESS)
    return status;
  std::copy(dims.begin(), dims.end(), tensorOuputDimA);
  return CUDNN_STATUS_SUCCESS;
}

}  // extern "C"
