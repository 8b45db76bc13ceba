// The cuDNN double's legacy convolutions: the three operations and the fused
// cudnnConvolutionBiasActivationForward (the algorithm queries and workspace sizes are
// convolution_queries.cc's). A convolution checks what cuDNN checks plus what only a test double
// can: every pointer range lies inside one live cudaMalloc allocation of the runtime
// double (a wrong micro-batch offset is caught here, with a line on stderr); then it
// advances the handle's stream clock by the modeled time and computes the exact result
// with cpu_backend's float64 reference (unless FAKECUDA_COMPUTE=0).
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "algorithm_ranking.h"
#include "convolution_calls.h"
#include "cost_model.h"
#include "cudnn_session.h"
#include "descriptors.h"
#include "device_fault.h"
#include "fakecuda_hooks.h"
#include "guarded_call.h"
#include "host_cost.h"
#include "kernel_from_descriptors.h"
#include "reference.h"
#include "stream_work.h"
#include "tensor_ops.h"
#include "trace.h"

using namespace ucudnn;
using namespace ucudnn::fakecuda;

namespace ucudnn::fakecuda {

const char* operation_name(Operation operation) {
  return name_of(operation).data();
}

KernelOrStatus checked_kernel(cudnnHandle_t handle, Operation operation, const cudnnTensorStruct* x,
                              const cudnnFilterStruct* w, const cudnnConvolutionStruct* conv,
                              const cudnnTensorStruct* y) {
  if (!alive(handle)) return {CUDNN_STATUS_BAD_PARAM, {}, "the handle is null or destroyed"};
  return kernel_from_descriptors(operation, x, w, conv, y);
}

std::string not_allocated(const char* name, const void* data, std::size_t bytes) {
  char text[256];
  std::snprintf(text, sizeof text,
                "%s [%p, +%zu bytes) does not lie inside one live cudaMalloc allocation "
                "(a wrong pointer or micro-batch offset?)",
                name, data, bytes);
  return text;
}

std::optional<std::string> outside_allocations(const KernelKey& kernel,
                                               const ConvolutionPointers& buffers,
                                               const cudnnTensorStruct* x,
                                               const cudnnFilterStruct* w,
                                               const cudnnTensorStruct* y) {
  const ConvolutionProblem& p = kernel.problem;
  const cudnnDataType_t type = x->data_type;
  struct Range {
    const char* name;
    const void* data;
    std::size_t bytes;
  };
  const Range ranges[] = {
      {kernel.operation == Operation::kBackwardData ? "dx" : "x", buffers.x,
       span_bytes(x->dims, p.x.strides, type)},
      {kernel.operation == Operation::kBackwardFilter ? "dw" : "w", buffers.w,
       span_bytes(w->dims, p.w.strides, type)},
      {kernel.operation == Operation::kForward ? "y" : "dy", buffers.y,
       span_bytes(y->dims, p.y.strides, type)},
  };
  for (const Range& range : ranges)
    if (!fakecuda_find_allocation(range.data, range.bytes))
      return not_allocated(range.name, range.data, range.bytes);
  return std::nullopt;
}

double scalar(const void* value, cudnnDataType_t type) {
  return type == CUDNN_DATA_DOUBLE ? *static_cast<const double*>(value)
                                   : static_cast<double>(*static_cast<const float*>(value));
}

namespace {
CheckedConvolution refused(cudnnStatus_t status) {
  CheckedConvolution c;
  c.status = status;
  return c;
}
}  // namespace

CheckedConvolution check_convolution(const char* function, cudnnHandle_t handle,
                                     Operation operation, const void* alpha, const void* beta,
                                     const cudnnTensorStruct* x, const void* x_data,
                                     const cudnnFilterStruct* w, const void* w_data,
                                     const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y,
                                     const void* y_data, int algorithm, void* workspace,
                                     size_t workspace_bytes) {
  CheckedConvolution c;
  // Wrong arguments (BAD_PARAM) before what the double cannot run (NOT_SUPPORTED).
  KernelOrStatus k = checked_kernel(handle, operation, x, w, conv, y);
  if (k.status == CUDNN_STATUS_BAD_PARAM) return refused(fail(k.status, function, k.problem));
  if (!alpha || !beta || !x_data || !w_data || !y_data)
    return refused(fail(CUDNN_STATUS_BAD_PARAM, function, "alpha, beta or a data pointer is null"));
  if (k.status != CUDNN_STATUS_SUCCESS) return refused(fail(k.status, function, k.problem));
  c.algorithm = algorithm_model(operation, algorithm);
  if (!c.algorithm)
    return refused(fail(CUDNN_STATUS_BAD_PARAM, function,
                        "algorithm " + std::to_string(algorithm) + " is not an enum value"));
  c.modeled = model(k.kernel, algorithm);
  if (!c.modeled.supported)
    return refused(fail(CUDNN_STATUS_NOT_SUPPORTED, function,
                        std::string("algorithm ") + c.algorithm->name.data() + " does not apply"));
  if (workspace_bytes < c.modeled.workspace_bytes)
    return refused(fail(CUDNN_STATUS_BAD_PARAM, function,
                        std::string("algorithm ") + c.algorithm->name.data() + " needs " +
                            std::to_string(c.modeled.workspace_bytes) + " workspace bytes, got " +
                            std::to_string(workspace_bytes),
                        true));
  if (auto outside = outside_allocations(k.kernel, {x_data, w_data, y_data}, x, w, y))
    return refused(fail(CUDNN_STATUS_BAD_PARAM, function, *outside, true));
  if (c.modeled.workspace_bytes > 0 &&
      !fakecuda_find_allocation(workspace, c.modeled.workspace_bytes))
    return refused(fail(CUDNN_STATUS_BAD_PARAM, function,
                        not_allocated("workspace", workspace, c.modeled.workspace_bytes), true));
  double ignored;
  if (fakecuda_stream_time(handle->stream, &ignored) != cudaSuccess)
    return refused(fail(CUDNN_STATUS_EXECUTION_FAILED_CUDART, function,
                        "the handle's stream is not a live stream"));
  c.kernel = std::move(k.kernel);
  return c;
}

// Takes the modeled time on the stream and traces the call, when the work is issued (at once,
// or at the launch of the graph that captured it).
void account(const CheckedConvolution& c, cudaStream_t stream, std::size_t workspace_bytes,
             const cpu::Scaling& scaling) {
  fakecuda_advance_stream(stream, c.modeled.time_ms);
  trace_line("conv op=%s algo=%s n=%lld workspace=%zu needed=%llu time_ms=%.9g alpha=%g beta=%g",
             operation_name(c.kernel.operation), c.algorithm->name.data(),
             static_cast<long long>(c.kernel.problem.batch()), workspace_bytes,
             static_cast<unsigned long long>(c.modeled.workspace_bytes), c.modeled.time_ms,
             scaling.alpha, scaling.beta);
}

void trace_if_captured(bool captured, const CheckedConvolution& c) {
  if (captured)
    trace_line("captured op=%s algo=%s n=%lld", operation_name(c.kernel.operation),
               c.algorithm->name.data(), static_cast<long long>(c.kernel.problem.batch()));
}

}  // namespace ucudnn::fakecuda

cudnnStatus_t ucudnn::fakecuda::run_convolution(
    const char* function, cudnnHandle_t handle, Operation operation, const void* alpha,
    const void* beta, const cudnnTensorStruct* x, const void* x_data, const cudnnFilterStruct* w,
    const void* w_data, const cudnnConvolutionStruct* conv, const cudnnTensorStruct* y,
    const void* y_data, int algorithm, void* workspace, size_t workspace_bytes,
    const Modeled* as_configured) {
  return guarded(function, [&] {
    CheckedConvolution c =
        check_convolution(function, handle, operation, alpha, beta, x, x_data, w, w_data, conv, y,
                          y_data, algorithm, workspace, workspace_bytes);
    if (c.status != CUDNN_STATUS_SUCCESS) return c.status;
    if (as_configured) {
      if (workspace_bytes < as_configured->workspace_bytes ||
          (as_configured->workspace_bytes > 0 &&
           !fakecuda_find_allocation(workspace, as_configured->workspace_bytes)))
        return fail(CUDNN_STATUS_BAD_PARAM, function,
                    "the engine configuration needs " +
                        std::to_string(as_configured->workspace_bytes) + " workspace bytes",
                    true);
      c.modeled = *as_configured;
    }
    const cpu::Scaling scaling{scalar(alpha, x->data_type), scalar(beta, x->data_type)};
    const cpu::Tensors tensors{const_cast<void*>(x_data), const_cast<void*>(w_data),
                               const_cast<void*>(y_data)};
    const cudaStream_t stream = handle->stream;
    trace_if_captured(run_on_stream(
                          stream,
                          [=] {
                            if (fakecuda_compute_enabled())
                              cpu::reference_convolution(c.kernel, tensors, scaling);
                          },
                          [=] { account(c, stream, workspace_bytes, scaling); }, workspace,
                          c.modeled.workspace_bytes),
                      c);
    return CUDNN_STATUS_SUCCESS;
  });
}

namespace {

// y = act(alpha1 * conv(x, w) + alpha2 * z + bias), z may be y itself.
cudnnStatus_t convolve_bias_activation(cudnnHandle_t handle, const void* alpha1,
                                       const cudnnTensorStruct* x, const void* x_data,
                                       const cudnnFilterStruct* w, const void* w_data,
                                       const cudnnConvolutionStruct* conv, int algorithm,
                                       void* workspace, size_t workspace_bytes, const void* alpha2,
                                       const cudnnTensorStruct* z, const void* z_data,
                                       const cudnnTensorStruct* bias, const void* bias_data,
                                       const cudnnActivationStruct* activation,
                                       const cudnnTensorStruct* y, void* y_data) {
  const char* function = "cudnnConvolutionBiasActivationForward";
  return guarded(function, [&] {
    if (!alive(handle)) return fail(CUDNN_STATUS_BAD_PARAM, function, "the handle is null");
    if (!alive(activation) || !activation->set || !usable(z) || !usable(bias) || !usable(y) ||
        !alpha2 || !z_data || !bias_data)
      return fail(CUDNN_STATUS_BAD_PARAM, function,
                  "activation, z, bias or their descriptors are missing or unset");
    if (activation->mode != CUDNN_ACTIVATION_RELU && activation->mode != CUDNN_ACTIVATION_IDENTITY)
      return fail(CUDNN_STATUS_NOT_SUPPORTED, function, "only RELU and IDENTITY activations");
    if (activation->mode == CUDNN_ACTIVATION_IDENTITY &&
        algorithm != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
      return fail(CUDNN_STATUS_NOT_SUPPORTED, function,
                  "IDENTITY needs CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM");
    if (z->dims != y->dims || z->data_type != y->data_type || bias->dims.size() != y->dims.size() ||
        bias->data_type != y->data_type)
      return fail(CUDNN_STATUS_BAD_PARAM, function, "z or bias does not match y");
    for (std::size_t d = 0; d < y->dims.size(); ++d)
      if (bias->dims[d] != (d == 1 ? y->dims[1] : 1))
        return fail(CUDNN_STATUS_BAD_PARAM, function, "bias must be 1 x K x 1 x 1");
    const float zero_float = 0;
    const double zero_double = 0;
    const void* zero =
        y->data_type == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&zero_double) : &zero_float;
    CheckedConvolution c =
        check_convolution(function, handle, Operation::kForward, alpha1, zero, x, x_data, w, w_data,
                          conv, y, y_data, algorithm, workspace, workspace_bytes);
    if (c.status != CUDNN_STATUS_SUCCESS) return c.status;
    auto on_device = [](const cudnnTensorStruct* t, const void* data) {
      std::vector<std::int64_t> strides(t->strides.begin(), t->strides.end());
      return fakecuda_find_allocation(data, span_bytes(t->dims, strides, t->data_type)) != 0;
    };
    if (!on_device(z, z_data) || !on_device(bias, bias_data))
      return fail(CUDNN_STATUS_BAD_PARAM, function, "z or bias is not in device memory", true);
    const cudnnDataType_t type = y->data_type;
    const double a1 = scalar(alpha1, type), a2 = scalar(alpha2, type);
    const cudnnTensorStruct yd = *y, zd = *z, bd = *bias;
    const cudnnActivationStruct act = *activation;
    const cudaStream_t stream = handle->stream;
    const std::vector<std::int64_t> y_strides(y->strides.begin(), y->strides.end());
    const std::size_t span = span_bytes(y->dims, y_strides, type);
    trace_if_captured(
        run_on_stream(
            stream,
            [=] {
              // The convolution into a scratch copy of y's layout, then the epilogue.
              std::vector<double> scratch((span + 7) / 8 + 1);
              const cpu::Scaling scaling{a1, 0};
              if (fakecuda_compute_enabled())
                cpu::reference_convolution(
                    c.kernel,
                    {const_cast<void*>(x_data), const_cast<void*>(w_data), scratch.data()},
                    scaling);
              const std::int64_t count = element_count(yd.dims);
              for (std::int64_t i = 0; i < count; ++i) {
                const auto at = offset_of(i, yd.dims, yd.strides, yd.dims);
                double value = read_element(scratch.data(), type, at);
                if (a2 != 0)
                  value +=
                      a2 * read_element(z_data, type, offset_of(i, yd.dims, zd.strides, zd.dims));
                value += read_element(bias_data, type, offset_of(i, yd.dims, bd.strides, bd.dims));
                write_element(y_data, type, at, activate(act, value));
              }
            },
            [=] {
              account(c, stream, workspace_bytes, {a1, 0});
            },
            workspace, c.modeled.workspace_bytes),
        c);
    return CUDNN_STATUS_SUCCESS;
  });
}

}  // namespace

extern "C" {

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void* alpha,
                                      const cudnnTensorDescriptor_t xDesc, const void* x,
                                      const cudnnFilterDescriptor_t wDesc, const void* w,
                                      const cudnnConvolutionDescriptor_t convDesc,
                                      cudnnConvolutionFwdAlgo_t algo, void* workSpace,
                                      size_t workSpaceSizeInBytes, const void* beta,
                                      const cudnnTensorDescriptor_t yDesc, void* y) {
  charge_host_cost(HostCost::kLegacyConvolution);
  count_toward_device_fault();
  return run_convolution(__func__, handle, kForward, alpha, beta, xDesc, x, wDesc, w, convDesc,
                         yDesc, y, algo, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t handle, const void* alpha,
                                           const cudnnFilterDescriptor_t wDesc, const void* w,
                                           const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                           const cudnnConvolutionDescriptor_t convDesc,
                                           cudnnConvolutionBwdDataAlgo_t algo, void* workSpace,
                                           size_t workSpaceSizeInBytes, const void* beta,
                                           const cudnnTensorDescriptor_t dxDesc, void* dx) {
  charge_host_cost(HostCost::kLegacyConvolution);
  count_toward_device_fault();
  return run_convolution(__func__, handle, kBackwardData, alpha, beta, dxDesc, dx, wDesc, w,
                         convDesc, dyDesc, dy, algo, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t handle, const void* alpha,
                                             const cudnnTensorDescriptor_t xDesc, const void* x,
                                             const cudnnTensorDescriptor_t dyDesc, const void* dy,
                                             const cudnnConvolutionDescriptor_t convDesc,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void* workSpace,
                                             size_t workSpaceSizeInBytes, const void* beta,
                                             const cudnnFilterDescriptor_t dwDesc, void* dw) {
  charge_host_cost(HostCost::kLegacyConvolution);
  count_toward_device_fault();
  return run_convolution(__func__, handle, kBackwardFilter, alpha, beta, xDesc, x, dwDesc, dw,
                         convDesc, dyDesc, dy, algo, workSpace, workSpaceSizeInBytes);
}

cudnnStatus_t cudnnConvolutionBiasActivationForward(
    cudnnHandle_t handle, const void* alpha1, const cudnnTensorDescriptor_t xDesc, const void* x,
    const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
    cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceSizeInBytes,
    const void* alpha2, const cudnnTensorDescriptor_t zDesc, const void* z,
    const cudnnTensorDescriptor_t biasDesc, const void* bias,
    const cudnnActivationDescriptor_t activationDesc, const cudnnTensorDescriptor_t yDesc,
    void* y) {
  return convolve_bias_activation(handle, alpha1, xDesc, x, wDesc, w, convDesc, algo, workSpace,
                                  workSpaceSizeInBytes, alpha2, zDesc, z, biasDesc, bias,
                                  activationDesc, yDesc, y);
}

}  // extern "C"
