#pragma once
// cuDNN's legacy convolution API with the operation as a value (arguments in
// convolution_arguments.h), calling the real library through the resolved table.
#include <cudnn.h>

#include <cstddef>

#include "core/kernel_key.h"
#include "cudnn/convolution_arguments.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn {

cudnnStatus_t convolve(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                       int algorithm, const void* alpha, const ConvolutionDescriptors& d,
                       const ConvolutionBuffers& buffers, void* workspace, std::size_t bytes,
                       const void* beta);

cudnnStatus_t workspace_size(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                             const ConvolutionDescriptors& d, int algorithm, std::size_t* bytes);

cudnnStatus_t algorithm_max_count(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                  int* count);

cudnnStatus_t select_algorithms(const CudnnApi& api, cudnnHandle_t handle, Operation operation,
                                Selection selection, const ConvolutionDescriptors& d, int requested,
                                int* returned, AlgorithmPerf* results,
                                const ConvolutionBuffers& buffers = {}, void* workspace = nullptr,
                                std::size_t bytes = 0);

}  // namespace ucudnn::cudnn
