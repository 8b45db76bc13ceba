#pragma once
// Each cuDNN convolution operation's differences in one table, one row per operation: its
// legacy functions and types, which descriptor and buffer plays which role in them (every
// function takes two inputs, the convolution, the output), its algorithms' stable names in
// enum order, and which of them are nondeterministic. Every per-operation choice in this
// folder reads a row (with_row); nothing else switches over the operations.
#include <cudnn.h>

#include <string_view>

#include "core/kernel_key.h"
#include "cudnn/convolution_arguments.h"
#include "cudnn/cudnn_api.h"

namespace ucudnn::cudnn::operation_table {

// Name: the functions' infix (cudnnConvolution<Name>); Short: the types' (cudnnConvolution
// <Short>Algo_t); First, Second, Output: the descriptors' and buffers' roles.
#define UCUDNN_OPERATION_ROW(Row, Name, Short, First, Second, Output)                           \
  struct Row {                                                                                  \
    using Algorithm = cudnnConvolution##Short##Algo_t;                                          \
    using Perf = cudnnConvolution##Short##AlgoPerf_t;                                           \
    static constexpr auto run = &CudnnApi::cudnnConvolution##Name;                              \
    static constexpr auto workspace_size = &CudnnApi::cudnnGetConvolution##Name##WorkspaceSize; \
    static constexpr auto max_count = &CudnnApi::cudnnGetConvolution##Name##AlgorithmMaxCount;  \
    static constexpr auto heuristic = &CudnnApi::cudnnGetConvolution##Name##Algorithm_v7;       \
    static constexpr auto find = &CudnnApi::cudnnFindConvolution##Name##Algorithm;              \
    static constexpr auto find_ex = &CudnnApi::cudnnFindConvolution##Name##AlgorithmEx;         \
    static constexpr auto first = &ConvolutionDescriptors::First;                               \
    static constexpr auto second = &ConvolutionDescriptors::Second;                             \
    static constexpr auto output = &ConvolutionDescriptors::Output;                             \
    static constexpr auto first_buffer = &ConvolutionBuffers::First;                            \
    static constexpr auto second_buffer = &ConvolutionBuffers::Second;                          \
    static constexpr auto output_buffer = &ConvolutionBuffers::Output;                          \
    static const std::string_view algorithms[];                                                 \
    static const int nondeterministic[];                                                        \
  }

UCUDNN_OPERATION_ROW(ForwardRow, Forward, Fwd, x, w, y);                      // x, w -> y
UCUDNN_OPERATION_ROW(BackwardDataRow, BackwardData, BwdData, w, y, x);        // w, dy -> dx
UCUDNN_OPERATION_ROW(BackwardFilterRow, BackwardFilter, BwdFilter, x, y, w);  // x, dy -> dw
#undef UCUDNN_OPERATION_ROW

// In enum order, checked against the headers' values in algorithms.cc.
inline constexpr std::string_view ForwardRow::algorithms[] = {
    "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
    "WINOGRAD",      "WINOGRAD_NONFUSED"};
inline constexpr int ForwardRow::nondeterministic[] = {-1};  // none: -1 is no algorithm
inline constexpr std::string_view BackwardDataRow::algorithms[] = {
    "ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
inline constexpr int BackwardDataRow::nondeterministic[] = {CUDNN_CONVOLUTION_BWD_DATA_ALGO_0};
inline constexpr std::string_view BackwardFilterRow::algorithms[] = {
    "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
inline constexpr int BackwardFilterRow::nondeterministic[] = {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
                                                              CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3};

// Calls `body` with the operation's row; `otherwise` for a value that is no operation.
template <typename Body, typename Result>
Result with_row(Operation operation, Body body, Result otherwise) {
  switch (operation) {
    case Operation::kForward:
      return body(ForwardRow{});
    case Operation::kBackwardData:
      return body(BackwardDataRow{});
    case Operation::kBackwardFilter:
      return body(BackwardFilterRow{});
  }
  return otherwise;
}

}  // namespace ucudnn::cudnn::operation_table
