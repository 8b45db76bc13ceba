#pragma once
// oneDNN's side of the oneDNN solvers: the CPU engine, the problem's tensors as oneDNN memory
// descriptors, and the choice of one of oneDNN's implementations for an operation. The
// solvers (onednn.cc) build their reorders and workspace layout around what this picks.
#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <string>

#include "core/kernel_key.h"

namespace ucudnn::cpu {

const dnnl::engine& cpu_engine();

// The problem's tensor in its own layout (dims and strides as given).
dnnl::memory::desc user_desc(const TensorShape& shape);
// The problem's filter; oneDNN wants grouped weights with the group as a dimension of its
// own: {G, K/G, C/G, spatial...}.
dnnl::memory::desc user_filter_desc(const ConvolutionProblem& problem);

struct Descs {
  dnnl::memory::desc x, w, y;
};

struct Params {
  dnnl::memory::dims strides, dilates, padding;
};

using Accept = std::function<bool(const dnnl::primitive_desc_base&)>;

// Walks oneDNN's implementations in its order of preference and returns a standalone copy
// of the first that accept(pd) takes (empty if none; throws dnnl::error when oneDNN has no
// implementation at all). A backward copy may still point at its forward hint, which the
// caller keeps alive in *hint.
dnnl::primitive_desc select_pd(Operation operation, dnnl::algorithm algorithm, const Descs& d,
                               const Params& p, const dnnl::primitive_attr& attr,
                               const Accept& accept, dnnl::primitive_desc* hint);

// What an implementation's name says it is.
bool is_gemm(const std::string& impl);
bool is_ref(const std::string& impl);

// Attributes that make a primitive take its scratchpad from our workspace.
dnnl::primitive_attr user_scratchpad();

}  // namespace ucudnn::cpu
