// Every function libucudnn_preload.so exports, called as a buggy framework might: each invalid
// call returns the cuDNN error status the doubles give for it (as cuDNN would), never a crash,
// and nothing runs (preloaded_convolution.h's problem).
#include <cuda_runtime_api.h>
#include <cudnn.h>
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <string>
#include <vector>

#include "preloaded_convolution.h"

namespace {

using namespace ucudnn::testing;

TEST_F(Preloaded, EveryGetAndFindRejectsBadArguments) {
  cudnnConvolutionFwdAlgoPerf_t fwd[16];
  cudnnConvolutionBwdDataAlgoPerf_t bwd_data[16];
  cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[16];
  int returned = 0;
  struct Case {
    const char* name;
    std::function<cudnnStatus_t()> call;
  };
  const std::vector<Case> cases = {
      {"v7 null handle",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(nullptr, x, w, conv, y, 16, &returned, fwd);
       }},
      {"v7 null x",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, nullptr, w, conv, y, 16, &returned,
                                                       fwd);
       }},
      {"v7 null w",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, nullptr, conv, y, 16, &returned,
                                                       fwd);
       }},
      {"v7 null conv",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, nullptr, y, 16, &returned,
                                                       fwd);
       }},
      {"v7 null y",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, nullptr, 16, &returned,
                                                       fwd);
       }},
      {"v7 mismatched y",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, bad_y, 16, &returned,
                                                       fwd);
       }},
      {"v7 zero requested",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 0, &returned, fwd);
       }},
      {"v7 negative requested",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, -3, &returned, fwd);
       }},
      {"v7 null returned",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 16, nullptr, fwd);
       }},
      {"v7 null results",
       [&] {
         return cudnnGetConvolutionForwardAlgorithm_v7(handle, x, w, conv, y, 16, &returned,
                                                       nullptr);
       }},
      {"find null handle",
       [&] {
         return cudnnFindConvolutionForwardAlgorithm(nullptr, x, w, conv, y, 16, &returned, fwd);
       }},
      {"find mismatched",
       [&] {
         return cudnnFindConvolutionForwardAlgorithm(handle, x, w, conv, bad_y, 16, &returned, fwd);
       }},
      {"findEx null handle",
       [&] {
         return cudnnFindConvolutionForwardAlgorithmEx(nullptr, x, x_data, w, w_data, conv, y,
                                                       y_data, 16, &returned, fwd, workspace,
                                                       1 << 20);
       }},
      {"findEx zero requested",
       [&] {
         return cudnnFindConvolutionForwardAlgorithmEx(
             handle, x, x_data, w, w_data, conv, y, y_data, 0, &returned, fwd, workspace, 1 << 20);
       }},
      {"bwd data v7 null handle",
       [&] {
         return cudnnGetConvolutionBackwardDataAlgorithm_v7(nullptr, w, y, conv, x, 16, &returned,
                                                            bwd_data);
       }},
      {"bwd data v7 mismatched",
       [&] {
         return cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, w, bad_y, conv, x, 16,
                                                            &returned, bwd_data);
       }},
      {"bwd data find null w",
       [&] {
         return cudnnFindConvolutionBackwardDataAlgorithm(handle, nullptr, y, conv, x, 16,
                                                          &returned, bwd_data);
       }},
      {"bwd data findEx null results",
       [&] {
         return cudnnFindConvolutionBackwardDataAlgorithmEx(handle, w, w_data, y, y_data, conv, x,
                                                            x_data, 16, &returned, nullptr,
                                                            workspace, 1 << 20);
       }},
      {"bwd filter v7 null handle",
       [&] {
         return cudnnGetConvolutionBackwardFilterAlgorithm_v7(nullptr, x, y, conv, w, 16, &returned,
                                                              bwd_filter);
       }},
      {"bwd filter v7 mismatched",
       [&] {
         return cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, x, bad_y, conv, w, 16,
                                                              &returned, bwd_filter);
       }},
      {"bwd filter find negative",
       [&] {
         return cudnnFindConvolutionBackwardFilterAlgorithm(handle, x, y, conv, w, -1, &returned,
                                                            bwd_filter);
       }},
      {"bwd filter findEx null handle",
       [&] {
         return cudnnFindConvolutionBackwardFilterAlgorithmEx(nullptr, x, x_data, y, y_data, conv,
                                                              w, w_data, 16, &returned, bwd_filter,
                                                              workspace, 1 << 20);
       }},
  };
  for (const auto& c : cases) EXPECT_NE(c.call(), CUDNN_STATUS_SUCCESS) << c.name;
}

TEST_F(Preloaded, WorkspaceSizeAndConvolutionRejectBadArguments) {
  const auto virtual_fwd = kVirtualForward;
  const auto virtual_data = kVirtualData;
  const auto virtual_filter = kVirtualFilter;
  std::size_t bytes = 0;
  struct Case {
    const char* name;
    std::function<cudnnStatus_t()> call;
  };
  const std::vector<Case> cases = {
      {"size null handle",
       [&] {
         return cudnnGetConvolutionForwardWorkspaceSize(nullptr, x, w, conv, y, virtual_fwd,
                                                        &bytes);
       }},
      {"size null result",
       [&] {
         return cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, virtual_fwd,
                                                        nullptr);
       }},
      {"size mismatched",
       [&] {
         return cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, bad_y, virtual_fwd,
                                                        &bytes);
       }},
      {"size unknown algorithm",
       [&] {
         return cudnnGetConvolutionForwardWorkspaceSize(
             handle, x, w, conv, y, static_cast<cudnnConvolutionFwdAlgo_t>(99), &bytes);
       }},
      {"data size null w",
       [&] {
         return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, nullptr, y, conv, x,
                                                             virtual_data, &bytes);
       }},
      {"filter size null handle",
       [&] {
         return cudnnGetConvolutionBackwardFilterWorkspaceSize(nullptr, x, y, conv, w,
                                                               virtual_filter, &bytes);
       }},
      {"forward null handle",
       [&] {
         return cudnnConvolutionForward(nullptr, &one, x, x_data, w, w_data, conv, virtual_fwd,
                                        workspace, 1 << 20, &zero, y, y_data);
       }},
      {"forward null alpha",
       [&] {
         return cudnnConvolutionForward(handle, nullptr, x, x_data, w, w_data, conv, virtual_fwd,
                                        workspace, 1 << 20, &zero, y, y_data);
       }},
      {"forward null beta",
       [&] {
         return cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv, virtual_fwd,
                                        workspace, 1 << 20, nullptr, y, y_data);
       }},
      {"forward null x",
       [&] {
         return cudnnConvolutionForward(handle, &one, x, nullptr, w, w_data, conv, virtual_fwd,
                                        workspace, 1 << 20, &zero, y, y_data);
       }},
      {"forward null y descriptor",
       [&] {
         return cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv, virtual_fwd,
                                        workspace, 1 << 20, &zero, nullptr, y_data);
       }},
      {"forward mismatched",
       [&] {
         return cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv, virtual_fwd,
                                        workspace, 1 << 20, &zero, bad_y, y_data);
       }},
      {"forward concrete null handle",
       [&] {
         return cudnnConvolutionForward(nullptr, &one, x, x_data, w, w_data, conv,
                                        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero,
                                        y, y_data);
       }},
      {"data null dy",
       [&] {
         return cudnnConvolutionBackwardData(handle, &one, w, w_data, y, nullptr, conv,
                                             virtual_data, workspace, 1 << 20, &zero, x, x_data);
       }},
      {"data mismatched",
       [&] {
         return cudnnConvolutionBackwardData(handle, &one, w, w_data, bad_y, y_data, conv,
                                             virtual_data, workspace, 1 << 20, &zero, x, x_data);
       }},
      {"filter null handle",
       [&] {
         return cudnnConvolutionBackwardFilter(nullptr, &one, x, x_data, y, y_data, conv,
                                               virtual_filter, workspace, 1 << 20, &zero, w,
                                               w_data);
       }},
      {"filter null dw descriptor",
       [&] {
         return cudnnConvolutionBackwardFilter(handle, &one, x, x_data, y, y_data, conv,
                                               virtual_filter, workspace, 1 << 20, &zero, nullptr,
                                               w_data);
       }},
  };
  for (const auto& c : cases) EXPECT_NE(c.call(), CUDNN_STATUS_SUCCESS) << c.name;
  // cuDNN runs an algorithm that needs no workspace with a null one whatever size is given:
  // the shim takes it as no workspace rather than refuse the call.
  EXPECT_EQ(cudnnConvolutionForward(handle, &one, x, x_data, w, w_data, conv, virtual_fwd, nullptr,
                                    1 << 20, &zero, y, y_data),
            CUDNN_STATUS_SUCCESS);
}

}  // namespace
