#pragma once
// The descriptors backend_probe builds from: tensors and convolution descriptors as specs,
// made through the printed calls (backend_probe_calls.h), and random convolution problems whose
// output follows cuDNN's formula or is perturbed the ways a consistent problem is not.
#include <cudnn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend_probe_calls.h"

namespace ucudnn::fakecuda::probe {

extern const std::vector<cudnnDataType_t> kTypes;

struct TensorSpec {
  std::vector<int64_t> dims, strides;
  int64_t uid = 1, alignment = 16;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  bool is_virtual = false;
};

// The strides of a packed tensor of these dimensions.
std::vector<int64_t> packed(const std::vector<int64_t>& dims);

Descriptor tensor(Backend& b, const TensorSpec& t, const std::string& name);

struct ConvolutionSpec {
  int64_t spatial = 2;
  std::vector<int64_t> pre{1, 1}, post{1, 1}, stride{1, 1}, dilation{1, 1};
  cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
};

Descriptor convolution(Backend& b, const ConvolutionSpec& c, const std::string& name);

// A convolution problem: the output from cuDNN's formula, or perturbed.
struct ConvolutionCase {
  TensorSpec x, w, y;
  ConvolutionSpec conv;
};

ConvolutionCase random_convolution(Draw& draw);

}  // namespace ucudnn::fakecuda::probe
