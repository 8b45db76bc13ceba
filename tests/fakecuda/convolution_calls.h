#pragma once
// The double's legacy convolution as pieces the graph API's execution and the algorithm queries
// share: the checks cuDNN makes before a convolution runs, the accounting of its modeled cost
// (virtual clock, trace line) and the whole call (convolution_api.cc).
#include <cudnn.h>

#include <cstddef>
#include <optional>
#include <string>

#include "cost_model.h"
#include "descriptors.h"
#include "kernel_from_descriptors.h"
#include "solver.h"

namespace ucudnn::fakecuda {

// A convolution call that passed cuDNN's checks: what it computes and what it takes.
struct CheckedConvolution {
  cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
  KernelKey kernel;
  const AlgorithmModel* algorithm = nullptr;
  Modeled modeled;
};

// Short names for the exports of the three operations.
inline constexpr Operation kForward = Operation::kForward;
inline constexpr Operation kBackwardData = Operation::kBackwardData;
inline constexpr Operation kBackwardFilter = Operation::kBackwardFilter;

// The operation's name in trace lines (cost_model.h's).
const char* operation_name(Operation operation);

// The kernel of a call, with the handle checked first as cuDNN does.
KernelOrStatus checked_kernel(cudnnHandle_t handle, Operation operation, const cudnnTensorStruct* x,
                              const cudnnFilterStruct* w, const cudnnConvolutionStruct* conv,
                              const cudnnTensorStruct* y);

// The message for `bytes` at `data` that lie in no live cudaMalloc allocation.
std::string not_allocated(const char* name, const void* data, std::size_t bytes);

// The data pointers of a call: x, w and y, whichever way data flows.
struct ConvolutionPointers {
  const void* x;
  const void* w;
  const void* y;
};

// The message for the first of the call's tensors not inside one live allocation, if any.
std::optional<std::string> outside_allocations(const KernelKey& kernel,
                                               const ConvolutionPointers& buffers,
                                               const cudnnTensorStruct* x,
                                               const cudnnFilterStruct* w,
                                               const cudnnTensorStruct* y);

// A scaling factor as the legacy API passes it: a double for double data, else a float.
double scalar(const void* value, cudnnDataType_t type);

CheckedConvolution check_convolution(const char* function, cudnnHandle_t handle,
                                     Operation operation, const void* alpha, const void* beta,
                                     const cudnnTensorStruct* x, const void* x_data,
                                     const cudnnFilterStruct* w, const void* w_data,
                                     const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y,
                                     const void* y_data, int algorithm, void* workspace,
                                     size_t workspace_bytes);

// Takes the modeled time on the stream and writes the `conv` trace line.
void account(const CheckedConvolution& c, cudaStream_t stream, std::size_t workspace_bytes,
             const cpu::Scaling& scaling);
// The `captured` trace line, when the work was captured.
void trace_if_captured(bool captured, const CheckedConvolution& c);

// cudnnConvolutionForward/BackwardData/BackwardFilter: x and y are the images whichever way
// data flows, w the filter (dw for BackwardFilter). `as_configured`: an engine configuration's
// time and workspace in place of the algorithm's (its knobs change them).
cudnnStatus_t run_convolution(const char* function, cudnnHandle_t handle, Operation operation,
                              const void* alpha, const void* beta, const cudnnTensorStruct* x,
                              const void* x_data, const cudnnFilterStruct* w, const void* w_data,
                              const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y,
                              const void* y_data, int algorithm, void* workspace,
                              size_t workspace_bytes, const Modeled* as_configured = nullptr);

}  // namespace ucudnn::fakecuda
