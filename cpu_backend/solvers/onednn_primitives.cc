#include "solvers/onednn_primitives.h"

namespace ucudnn::cpu {

using dnnl::memory;

const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::desc user_desc(const TensorShape& shape) {
  return memory::desc(memory::dims(shape.dims.begin(), shape.dims.end()), memory::data_type::f32,
                      memory::dims(shape.strides.begin(), shape.strides.end()));
}

// The group stride follows from the output-channel stride because the groups' output channels
// are consecutive.
memory::desc user_filter_desc(const ConvolutionProblem& problem) {
  memory::dims dims(problem.w.dims.begin(), problem.w.dims.end());
  memory::dims strides(problem.w.strides.begin(), problem.w.strides.end());
  if (problem.groups > 1) {
    dims[0] /= problem.groups;  // the filter's C is already per group
    dims.insert(dims.begin(), problem.groups);
    strides.insert(strides.begin(), dims[1] * strides[0]);
  }
  return memory::desc(dims, memory::data_type::f32, strides);
}

namespace {

dnnl::convolution_forward::desc forward_desc(dnnl::prop_kind prop, dnnl::algorithm algorithm,
                                             const Descs& d, const Params& p) {
  return dnnl::convolution_forward::desc(prop, algorithm, d.x, d.w, d.y, p.strides, p.dilates,
                                         p.padding, p.padding);
}

// A forward pd detached from its implementation iterator (which points at the operation
// descriptor, a local here).
dnnl::convolution_forward::primitive_desc forward_hint(dnnl::algorithm algorithm, const Descs& d,
                                                       const Params& p) {
  const auto desc = forward_desc(dnnl::prop_kind::forward_training, algorithm, d, p);
  const dnnl::convolution_forward::primitive_desc pd(desc, cpu_engine());
  return dnnl::convolution_forward::primitive_desc(pd.get());
}

}  // namespace

// Walks oneDNN's implementations in its order of preference and returns a standalone copy
// of the first that accept(pd) takes (empty if none; throws dnnl::error when oneDNN has no
// implementation at all). The iterator keeps pointers to the operation descriptor and the
// forward hint, so both must outlive the walk; the copy needs neither, except that a
// backward copy may still point at its hint, which the caller keeps in *hint.
dnnl::primitive_desc select_pd(Operation operation, dnnl::algorithm algorithm, const Descs& d,
                               const Params& p, const dnnl::primitive_attr& attr,
                               const Accept& accept, dnnl::primitive_desc* hint) {
  const auto walk = [&](auto pd) -> dnnl::primitive_desc {
    do {
      if (accept(pd)) return decltype(pd)(pd.get());
    } while (pd.next_impl());
    return {};
  };
  if (operation == Operation::kForward) {
    // Inference first, the prop kind of the call; training offers other implementations
    // (Winograd 4x3 next to inference's 2x3, whose filter format few layouts reorder into).
    dnnl::primitive_desc found;
    try {
      const auto desc = forward_desc(dnnl::prop_kind::forward_inference, algorithm, d, p);
      found = walk(dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine()));
    } catch (const dnnl::error&) {
    }
    if (found) return found;
    const auto desc = forward_desc(dnnl::prop_kind::forward_training, algorithm, d, p);
    return walk(dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine()));
  }
  // The hint only steers layouts; a backward algorithm without a forward twin (possible for
  // Winograd) still gets one from the direct forward.
  dnnl::convolution_forward::primitive_desc forward;
  try {
    forward = forward_hint(algorithm, d, p);
  } catch (const dnnl::error&) {
    forward = forward_hint(dnnl::algorithm::convolution_direct, d, p);
  }
  *hint = forward;
  if (operation == Operation::kBackwardData) {
    const dnnl::convolution_backward_data::desc desc(algorithm, d.x, d.w, d.y, p.strides, p.dilates,
                                                     p.padding, p.padding);
    return walk(dnnl::convolution_backward_data::primitive_desc(desc, attr, cpu_engine(), forward));
  }
  const dnnl::convolution_backward_weights::desc desc(algorithm, d.x, d.w, d.y, p.strides,
                                                      p.dilates, p.padding, p.padding);
  return walk(
      dnnl::convolution_backward_weights::primitive_desc(desc, attr, cpu_engine(), forward));
}

bool is_gemm(const std::string& impl) {
  return impl.find("gemm") != std::string::npos;
}
bool is_ref(const std::string& impl) {
  return impl.rfind("ref", 0) == 0;
}

dnnl::primitive_attr user_scratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

}  // namespace ucudnn::cpu
