#include "backend_execution.h"

#include <algorithm>
#include <map>
#include <vector>

#include "backend_attributes.h"
#include "convolution_calls.h"
#include "cudnn_session.h"
#include "fakecuda_hooks.h"
#include "guarded_call.h"
#include "reference.h"
#include "stream_work.h"
#include "tensor_ops.h"
#include "trace.h"

namespace ucudnn::fakecuda {

namespace {

// The data pointers of a variant pack by unique id, and its workspace.
struct Variants {
  std::map<std::int64_t, void*> pointers;
  void* workspace = nullptr;
};

Variants variants_of(const BackendDescriptor& pack) {
  Variants v;
  const auto uids = array_attribute<std::int64_t>(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
  const auto pointers = array_attribute<void*>(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
  for (std::size_t i = 0; i < uids.size() && i < pointers.size(); ++i)
    v.pointers[uids[i]] = pointers[i];
  v.workspace = scalar_attribute<void*>(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, nullptr);
  return v;
}

// The scaling factors as the legacy API takes them: a double for double data, else a float.
struct Scalars {
  float f_alpha, f_beta;
  double d_alpha, d_beta;
  bool is_double;
  const void* alpha() const { return is_double ? static_cast<const void*>(&d_alpha) : &f_alpha; }
  const void* beta() const { return is_double ? static_cast<const void*>(&d_beta) : &f_beta; }
};

Scalars scalars(const BackendConvolution& c) {
  return {static_cast<float>(c.alpha), static_cast<float>(c.beta), c.alpha, c.beta,
          c.x.data_type == CUDNN_DATA_DOUBLE};
}

double apply(const BackendPointwise& p, double x, double b) {
  switch (p.mode) {
    case CUDNN_POINTWISE_ADD:
      return p.alpha1 * x + p.alpha2 * b;
    case CUDNN_POINTWISE_MUL:
      return p.alpha1 * x * (p.alpha2 * b);
    case CUDNN_POINTWISE_RELU_FWD:
      return std::max(0.0, p.alpha1 * x);
    default:
      return p.alpha1 * x;
  }
}

}  // namespace

cudnnStatus_t execute_convolution(cudnnHandle_t handle, const BackendGraph& graph,
                                  const BackendEngine& engine, const BackendDescriptor& pack) {
  const Variants v = variants_of(pack);
  const char* function = "cudnnBackendExecute";
  const BackendConvolution& c = *graph.convolution;
  auto pointer = [&](std::int64_t uid) -> void* {
    auto found = v.pointers.find(uid);
    return found == v.pointers.end() ? nullptr : found->second;
  };
  const Scalars s = scalars(c);
  if (graph.epilogue.empty()) {
    void* x = pointer(c.x_uid);
    void* w = pointer(c.w_uid);
    void* y = pointer(c.y_uid);
    if (!x || !w || !y)
      return fail(CUDNN_STATUS_BAD_PARAM, function, "the variant pack lacks a tensor's pointer");
    trace_line("backend-execute op=%s engine=%lld n=%d epilogue=0 x_uid=%lld workspace=%llu",
               name_of(c.operation).data(), static_cast<long long>(engine.index),
               c.x.dims.empty() ? 0 : c.x.dims[0], static_cast<long long>(c.x_uid),
               static_cast<unsigned long long>(engine.workspace_bytes));
    const Modeled as_configured{true, engine.time_ms, engine.workspace_bytes};
    return run_convolution(function, handle, c.operation, s.alpha(), s.beta(), &c.x, x, &c.w, w,
                           &c.conv, &c.y, y, engine.algorithm, v.workspace,
                           static_cast<std::size_t>(engine.workspace_bytes), &as_configured);
  }
  // The fused engine: the convolution into scratch (the virtual tensor), then the epilogue.
  void* x = pointer(c.x_uid);
  void* w = pointer(c.w_uid);
  void* y = pointer(graph.epilogue.back().y_uid);
  for (const auto& p : graph.epilogue)
    if (p.has_b && !pointer(p.b_uid)) x = nullptr;
  if (!x || !w || !y)
    return fail(CUDNN_STATUS_BAD_PARAM, function, "the variant pack lacks a tensor's pointer");
  const float zero_float = 0;
  const double zero_double = 0;
  const void* zero = s.is_double ? static_cast<const void*>(&zero_double) : &zero_float;
  CheckedConvolution checked = check_convolution(
      function, handle, c.operation, s.alpha(), zero, &c.x, x, &c.w, w, &c.conv, &c.y, y,
      engine.algorithm, v.workspace, static_cast<std::size_t>(engine.workspace_bytes));
  if (checked.status != CUDNN_STATUS_SUCCESS) return checked.status;
  std::vector<const void*> biases;
  for (const auto& p : graph.epilogue) biases.push_back(p.has_b ? pointer(p.b_uid) : nullptr);
  const cudaStream_t stream = handle->stream;
  const auto epilogue = graph.epilogue;
  const cudnnTensorStruct out = graph.epilogue.back().y;
  const double alpha = c.alpha;
  trace_line("backend-execute op=%s engine=%lld n=%d epilogue=%zu x_uid=%lld workspace=%llu",
             name_of(c.operation).data(), static_cast<long long>(engine.index),
             c.x.dims.empty() ? 0 : c.x.dims[0], epilogue.size(), static_cast<long long>(c.x_uid),
             static_cast<unsigned long long>(engine.workspace_bytes));
  trace_if_captured(
      run_on_stream(
          stream,
          [=] {
            if (!fakecuda_compute_enabled()) return;
            const std::int64_t count = element_count(out.dims);
            std::vector<double> scratch(static_cast<std::size_t>(count));
            // The convolution's output in packed row-major order, as the virtual tensor.
            cudnnTensorStruct packed = c.y;
            packed.data_type = CUDNN_DATA_DOUBLE;
            std::vector<std::int64_t> strides = packed_strides(c.y.dims, CUDNN_TENSOR_NCHW);
            packed.strides.assign(strides.begin(), strides.end());
            KernelKey kernel = checked.kernel;
            kernel.problem.y.strides = strides;
            std::vector<double> conv_out(static_cast<std::size_t>(count));
            if (out.data_type == CUDNN_DATA_DOUBLE) {
              cpu::reference_convolution(
                  kernel, {const_cast<void*>(x), const_cast<void*>(w), conv_out.data()},
                  {alpha, 0});
            } else {
              std::vector<float> as_float(static_cast<std::size_t>(count));
              cpu::reference_convolution(
                  kernel, {const_cast<void*>(x), const_cast<void*>(w), as_float.data()},
                  {alpha, 0});
              std::copy(as_float.begin(), as_float.end(), conv_out.begin());
            }
            for (std::int64_t i = 0; i < count; ++i) {
              double value = conv_out[static_cast<std::size_t>(i)];
              for (std::size_t k = 0; k < epilogue.size(); ++k) {
                const BackendPointwise& p = epilogue[k];
                const double b = p.has_b
                                     ? read_element(biases[k], p.b.data_type,
                                                    offset_of(i, out.dims, p.b.strides, p.b.dims))
                                     : 0;
                value = apply(p, value, b);
              }
              write_element(y, out.data_type, offset_of(i, out.dims, out.strides, out.dims), value);
            }
          },
          [=] {
            account(checked, stream, static_cast<std::size_t>(engine.workspace_bytes), {alpha, 0});
          },
          v.workspace, static_cast<std::size_t>(engine.workspace_bytes)),
      checked);
  return CUDNN_STATUS_SUCCESS;
}

}  // namespace ucudnn::fakecuda
