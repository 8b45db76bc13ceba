#pragma once
// The cuDNN double's own descriptor and handle objects. cuDNN's headers only declare these
// structs, so the double defines them; the real library is never loaded. Each starts with
// a tag so that a descriptor of the wrong kind, or one already destroyed, is reported as
// CUDNN_STATUS_BAD_PARAM instead of being misread (while the memory is still mapped).
#include <cudnn.h>

#include <cstdint>
#include <vector>

namespace ucudnn::fakecuda {

enum class Tag : std::uint32_t {
  kDead = 0,
  kHandle = 0x68616e64,
  kTensor = 0x74656e73,
  kFilter = 0x66696c74,
  kConvolution = 0x636f6e76,
  kActivation = 0x61637476,
  kBackend = 0x62636b64,
};

// The first `count` output dimensions (N, K, spatial...) of convolving x with w under conv
// (cudnnGetConvolutionNdForwardOutputDim's rule), or BAD_PARAM when they do not convolve;
// as cuDNN, a spatial dimension past `count` is not checked.
cudnnStatus_t output_dims(const cudnnConvolutionStruct* conv, const cudnnTensorStruct* x,
                          const cudnnFilterStruct* w, std::size_t count, std::vector<int>* out);

}  // namespace ucudnn::fakecuda

struct cudnnContext {
  ucudnn::fakecuda::Tag tag = ucudnn::fakecuda::Tag::kHandle;
  cudaStream_t stream = nullptr;
};

struct cudnnTensorStruct {
  ucudnn::fakecuda::Tag tag = ucudnn::fakecuda::Tag::kTensor;
  bool set = false;  // created but never set: unusable, as in cuDNN
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  std::vector<int> dims;     // outermost (N) first, logical NCHW order
  std::vector<int> strides;  // in elements
};

struct cudnnFilterStruct {
  ucudnn::fakecuda::Tag tag = ucudnn::fakecuda::Tag::kFilter;
  bool set = false;
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  std::vector<int> dims;  // K, C per group, spatial...; the layout follows from format
};

struct cudnnConvolutionStruct {
  ucudnn::fakecuda::Tag tag = ucudnn::fakecuda::Tag::kConvolution;
  bool set = false;
  std::vector<int> padding, stride, dilation;       // one entry per spatial dimension
  cudnnConvolutionMode_t mode = CUDNN_CONVOLUTION;  // what an unset one reads back in cuDNN
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math_type = CUDNN_DEFAULT_MATH;
  cudnnReorderType_t reorder = CUDNN_DEFAULT_REORDER;
};

struct cudnnActivationStruct {
  ucudnn::fakecuda::Tag tag = ucudnn::fakecuda::Tag::kActivation;
  bool set = false;
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_RELU;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  double coef = 0;
};

namespace ucudnn::fakecuda {

inline bool alive(const cudnnActivationStruct* a) {
  return a && a->tag == Tag::kActivation;
}
inline bool alive(const cudnnContext* h) {
  return h && h->tag == Tag::kHandle;
}
inline bool alive(const cudnnTensorStruct* t) {
  return t && t->tag == Tag::kTensor;
}
inline bool alive(const cudnnFilterStruct* f) {
  return f && f->tag == Tag::kFilter;
}
inline bool alive(const cudnnConvolutionStruct* c) {
  return c && c->tag == Tag::kConvolution;
}

// Element strides of packed tensors: row-major (NCHW) or channels-last (NHWC) for the
// logical dims [N, C, spatial...]. A filter's dims [K, C/groups, spatial...] use the same.
std::vector<std::int64_t> packed_strides(const std::vector<int>& dims, cudnnTensorFormat_t format);

// Bytes of one element; 0 for a type the double does not know.
std::size_t element_bytes(cudnnDataType_t type);

// The bytes a strided tensor spans: (sum (dim-1)*|stride| + 1) * size, as cuDNN's
// cudnnGetTensorSizeInBytes; 0 for no dimensions (an unset descriptor).
std::size_t span_bytes(const std::vector<int>& dims, const std::vector<std::int64_t>& strides,
                       cudnnDataType_t type);

// The first `count` output dimensions (N, K, spatial...) of convolving x with w under conv
// (cudnnGetConvolutionNdForwardOutputDim's rule), or BAD_PARAM when they do not convolve;
// as cuDNN, a spatial dimension past `count` is not checked.
cudnnStatus_t output_dims(const cudnnConvolutionStruct* conv, const cudnnTensorStruct* x,
                          const cudnnFilterStruct* w, std::size_t count, std::vector<int>* out);

}  // namespace ucudnn::fakecuda
