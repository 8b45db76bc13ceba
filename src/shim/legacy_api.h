#pragma once
// cuDNN's legacy convolution functions, each with its exact signature plus a layer id,
// implemented on the interposer. Both front ends forward to these: the LD_PRELOAD exports
// (layer kNoLayer) and UcudnnHandle_t's overloads.
#include <cudnn.h>

#include <cstdint>

namespace ucudnn::shim::legacy {

cudnnStatus_t forward_max_count(cudnnHandle_t handle, int* count);
cudnnStatus_t backward_data_max_count(cudnnHandle_t handle, int* count);
cudnnStatus_t backward_filter_max_count(cudnnHandle_t handle, int* count);

cudnnStatus_t forward_algorithm_v7(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                   cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                   cudnnTensorDescriptor_t y, int requested, int* returned,
                                   cudnnConvolutionFwdAlgoPerf_t* results, std::int64_t layer);
cudnnStatus_t find_forward(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                           cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                           cudnnTensorDescriptor_t y, int requested, int* returned,
                           cudnnConvolutionFwdAlgoPerf_t* results, std::int64_t layer);
cudnnStatus_t find_forward_ex(cudnnHandle_t handle, cudnnTensorDescriptor_t xd, const void* x,
                              cudnnFilterDescriptor_t wd, const void* w,
                              cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t yd,
                              void* y, int requested, int* returned,
                              cudnnConvolutionFwdAlgoPerf_t* results, void* workspace,
                              std::size_t bytes, std::int64_t layer);
cudnnStatus_t forward_workspace_size(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                     cudnnFilterDescriptor_t w, cudnnConvolutionDescriptor_t conv,
                                     cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t algo,
                                     std::size_t* bytes, std::int64_t layer);
cudnnStatus_t forward(cudnnHandle_t handle, const void* alpha, cudnnTensorDescriptor_t xd,
                      const void* x, cudnnFilterDescriptor_t wd, const void* w,
                      cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
                      void* workspace, std::size_t bytes, const void* beta,
                      cudnnTensorDescriptor_t yd, void* y, std::int64_t layer);

cudnnStatus_t backward_data_algorithm_v7(cudnnHandle_t handle, cudnnFilterDescriptor_t w,
                                         cudnnTensorDescriptor_t dy,
                                         cudnnConvolutionDescriptor_t conv,
                                         cudnnTensorDescriptor_t dx, int requested, int* returned,
                                         cudnnConvolutionBwdDataAlgoPerf_t* results,
                                         std::int64_t layer);
cudnnStatus_t find_backward_data(cudnnHandle_t handle, cudnnFilterDescriptor_t w,
                                 cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t conv,
                                 cudnnTensorDescriptor_t dx, int requested, int* returned,
                                 cudnnConvolutionBwdDataAlgoPerf_t* results, std::int64_t layer);
cudnnStatus_t find_backward_data_ex(cudnnHandle_t handle, cudnnFilterDescriptor_t wd, const void* w,
                                    cudnnTensorDescriptor_t dyd, const void* dy,
                                    cudnnConvolutionDescriptor_t conv, cudnnTensorDescriptor_t dxd,
                                    void* dx, int requested, int* returned,
                                    cudnnConvolutionBwdDataAlgoPerf_t* results, void* workspace,
                                    std::size_t bytes, std::int64_t layer);
cudnnStatus_t backward_data_workspace_size(cudnnHandle_t handle, cudnnFilterDescriptor_t w,
                                           cudnnTensorDescriptor_t dy,
                                           cudnnConvolutionDescriptor_t conv,
                                           cudnnTensorDescriptor_t dx,
                                           cudnnConvolutionBwdDataAlgo_t algo, std::size_t* bytes,
                                           std::int64_t layer);
cudnnStatus_t backward_data(cudnnHandle_t handle, const void* alpha, cudnnFilterDescriptor_t wd,
                            const void* w, cudnnTensorDescriptor_t dyd, const void* dy,
                            cudnnConvolutionDescriptor_t conv, cudnnConvolutionBwdDataAlgo_t algo,
                            void* workspace, std::size_t bytes, const void* beta,
                            cudnnTensorDescriptor_t dxd, void* dx, std::int64_t layer);

cudnnStatus_t backward_filter_algorithm_v7(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                           cudnnTensorDescriptor_t dy,
                                           cudnnConvolutionDescriptor_t conv,
                                           cudnnFilterDescriptor_t dw, int requested, int* returned,
                                           cudnnConvolutionBwdFilterAlgoPerf_t* results,
                                           std::int64_t layer);
cudnnStatus_t find_backward_filter(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                   cudnnTensorDescriptor_t dy, cudnnConvolutionDescriptor_t conv,
                                   cudnnFilterDescriptor_t dw, int requested, int* returned,
                                   cudnnConvolutionBwdFilterAlgoPerf_t* results,
                                   std::int64_t layer);
cudnnStatus_t find_backward_filter_ex(cudnnHandle_t handle, cudnnTensorDescriptor_t xd,
                                      const void* x, cudnnTensorDescriptor_t dyd, const void* dy,
                                      cudnnConvolutionDescriptor_t conv,
                                      cudnnFilterDescriptor_t dwd, void* dw, int requested,
                                      int* returned, cudnnConvolutionBwdFilterAlgoPerf_t* results,
                                      void* workspace, std::size_t bytes, std::int64_t layer);
cudnnStatus_t backward_filter_workspace_size(cudnnHandle_t handle, cudnnTensorDescriptor_t x,
                                             cudnnTensorDescriptor_t dy,
                                             cudnnConvolutionDescriptor_t conv,
                                             cudnnFilterDescriptor_t dw,
                                             cudnnConvolutionBwdFilterAlgo_t algo,
                                             std::size_t* bytes, std::int64_t layer);
cudnnStatus_t backward_filter(cudnnHandle_t handle, const void* alpha, cudnnTensorDescriptor_t xd,
                              const void* x, cudnnTensorDescriptor_t dyd, const void* dy,
                              cudnnConvolutionDescriptor_t conv,
                              cudnnConvolutionBwdFilterAlgo_t algo, void* workspace,
                              std::size_t bytes, const void* beta, cudnnFilterDescriptor_t dwd,
                              void* dw, std::int64_t layer);

}  // namespace ucudnn::shim::legacy
