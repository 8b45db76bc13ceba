#pragma once
// Elementwise helpers of the cuDNN double's tensor operations (tensor_ops_api.cc), shared
// with the fused convolution.
#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "descriptors.h"

namespace ucudnn::fakecuda {

double read_element(const void* data, cudnnDataType_t type, std::int64_t offset);
void write_element(void* data, cudnnDataType_t type, std::int64_t offset, double value);
std::int64_t element_count(const std::vector<int>& dims);
// The offset of the index-th element of `dims` (row-major) in a tensor of dims `of_dims` and
// `strides`; its size-1 dimensions broadcast.
std::int64_t offset_of(std::int64_t index, const std::vector<int>& dims,
                       const std::vector<int>& strides, const std::vector<int>& of_dims);
double activate(const cudnnActivationStruct& activation, double value);
// A set float or double tensor descriptor.
bool usable(const cudnnTensorStruct* t);

}  // namespace ucudnn::fakecuda
