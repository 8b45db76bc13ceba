#pragma once
// The shim's behaviour behind both front ends (the LD_PRELOAD exports and UcudnnHandle_t's
// overloads), with the operation as a value: what each legacy call does, handle lifetime and
// the options API. It implements DESIGN's contract: Get/Find put
// ucudnn's plan first as the virtual algorithm and cuDNN's own results after it; a call with
// the virtual algorithm runs the plan (planning on first use); a concrete algorithm passes
// through unchanged; every internal failure falls back to the undivided call with one
// warning. Nothing here throws.
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "cudnn/convolution_arguments.h"
#include "shim/kernel_identity.h"
#include "ucudnn/runtime_call_counts.h"

namespace ucudnn::cudnn {
class PlanExecutor;  // (its header is not for the UcudnnHandle_t front end: it names cuDNN's)
}  // namespace ucudnn::cudnn

namespace ucudnn::shim {

cudnnStatus_t find_algorithms(Operation operation, cudnn::Selection selection, cudnnHandle_t handle,
                              const cudnn::ConvolutionDescriptors& d, int requested, int* returned,
                              cudnn::AlgorithmPerf* results,
                              const cudnn::ConvolutionBuffers& buffers = {},
                              void* workspace = nullptr, std::size_t workspace_bytes = 0,
                              PlanScope scope = {});

// What Get/Find put first: ucudnn's plan as the virtual algorithm's result, planned as
// `selection` plans (the graph API's execution plans plan as Find does). nullopt when the call
// would pass through: no plan, or descriptors cuDNN refuses. Under WR, `executor` (if given)
// receives the plan itself, made within the limit or within `at_most` where that is less (a
// graph-API plan's own engine's workspace: what the application has shown it can give).
std::optional<cudnn::AlgorithmPerf> planned_result(
    Operation operation, cudnn::Selection selection, cudnnHandle_t handle,
    const cudnn::ConvolutionDescriptors& d, const cudnn::ConvolutionBuffers& buffers,
    void* workspace, std::size_t workspace_bytes, PlanScope scope,
    std::shared_ptr<cudnn::PlanExecutor>* executor = nullptr,
    std::optional<std::uint64_t> at_most = std::nullopt);

cudnnStatus_t workspace_size(Operation operation, cudnnHandle_t handle,
                             const cudnn::ConvolutionDescriptors& d, int algorithm,
                             std::size_t* bytes, PlanScope scope = {});

cudnnStatus_t algorithm_max_count(Operation operation, cudnnHandle_t handle, int* count);

cudnnStatus_t convolution(Operation operation, cudnnHandle_t handle, const void* alpha,
                          const cudnn::ConvolutionDescriptors& d,
                          const cudnn::ConvolutionBuffers& buffers, int algorithm, void* workspace,
                          std::size_t workspace_bytes, const void* beta, PlanScope scope = {});

// cudnnConvolutionBiasActivationForward: y = act(alpha1 * conv(x, w) + alpha2 * z + bias). With
// the virtual algorithm, the planned convolution (alpha1, and alpha2 as beta over z copied into
// y), then cuDNN's bias addition and activation; a concrete algorithm passes through.
struct FusedEpilogue {
  const void* alpha2;
  cudnnTensorDescriptor_t z_desc;
  const void* z;
  cudnnTensorDescriptor_t bias_desc;
  const void* bias;
  cudnnActivationDescriptor_t activation;
};
cudnnStatus_t convolution_bias_activation(cudnnHandle_t handle, const void* alpha1,
                                          const cudnn::ConvolutionDescriptors& d,
                                          const cudnn::ConvolutionBuffers& buffers, int algorithm,
                                          void* workspace, std::size_t workspace_bytes,
                                          const FusedEpilogue& epilogue, PlanScope scope = {});

// cudnnCreate through the table (UcudnnHandle_t's overload cannot call it by name); records
// the device the handle is bound to.
cudnnStatus_t create_handle(cudnnHandle_t* handle);
// cudnnDestroy: forgets the handle's plans and frees its WD arena, then destroys it.
cudnnStatus_t destroy_handle(cudnnHandle_t handle);

// The options API (UcudnnHandle_t and ucudnnSet*). Statuses: BAD_PARAM for a null handle or
// an unknown policy name.
cudnnStatus_t set_batch_size_policy(cudnnHandle_t handle, const char* policy);
cudnnStatus_t set_workspace_limit(cudnnHandle_t handle, std::size_t bytes);
cudnnStatus_t set_total_workspace_size(cudnnHandle_t handle, std::size_t bytes);
cudnnStatus_t set_database(const char* path);
cudnnStatus_t optimize(cudnnHandle_t handle);
// ucudnnGetRuntimeCallCounts (include/ucudnn/runtime_call_counts.h).
cudnnStatus_t runtime_call_counts(UcudnnRuntimeCallCounts* measuring,
                                  UcudnnRuntimeCallCounts* other);

}  // namespace ucudnn::shim
