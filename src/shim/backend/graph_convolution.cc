#include "shim/backend/graph_convolution.h"

#include <memory>

#include <algorithm>
#include <optional>

#include "cudnn/convolution_operation_attributes.h"
#include "cudnn/cudnn_types.h"

namespace ucudnn::shim::backend {

namespace {

// The operation graph an execution plan runs: through its engine configuration, which the
// application built on an engine (ENGINECFG_ENGINE) or took from the heuristics.
const Record* graph_of(const Record& plan) {
  const Record* configuration = plan.descriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
  if (!configuration) return nullptr;
  if (configuration->heuristics_graph) return configuration->heuristics_graph.get();
  const Record* engine = configuration->descriptor(CUDNN_ATTR_ENGINECFG_ENGINE);
  return engine ? engine->descriptor(CUDNN_ATTR_ENGINE_OPERATION_GRAPH) : nullptr;
}

struct Tensor {
  TensorShape shape;
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  std::int64_t uid = 0;
};

// `batched`: the first dimension is the batch, which micro-batches slice (not the filter's).
Expected<Tensor> tensor_of(const Record* record, const char* role, bool batched) {
  const std::string name(role);
  if (!record || record->type != CUDNN_BACKEND_TENSOR_DESCRIPTOR)
    return Error{name + " is not a tensor ucudnn recorded"};
  if (record->scalar<bool>(CUDNN_ATTR_TENSOR_IS_VIRTUAL).value_or(false))
    return Error{name + " is virtual (an intermediate of a fused graph)"};
  if (record->scalar<bool>(CUDNN_ATTR_TENSOR_IS_BY_VALUE).value_or(false))
    return Error{name + " is passed by value"};
  if (record->scalar<std::int64_t>(CUDNN_ATTR_TENSOR_VECTOR_COUNT).value_or(1) != 1)
    return Error{name + " is vectorized"};
  Tensor t;
  t.shape.dims = record->array<std::int64_t>(CUDNN_ATTR_TENSOR_DIMENSIONS);
  t.shape.strides = record->array<std::int64_t>(CUDNN_ATTR_TENSOR_STRIDES);
  t.type = record->scalar<cudnnDataType_t>(CUDNN_ATTR_TENSOR_DATA_TYPE).value_or(CUDNN_DATA_FLOAT);
  const auto uid = record->scalar<std::int64_t>(CUDNN_ATTR_TENSOR_UNIQUE_ID);
  if (!uid) return Error{name + " has no unique id"};
  t.uid = *uid;
  if (t.shape.dims.size() < 3 || t.shape.dims.size() != t.shape.strides.size())
    return Error{name + " has no spatial dimension"};
  // Micro-batches are slices along the first dimension: it must be the outermost one.
  for (std::size_t i = 1; batched && i < t.shape.dims.size(); ++i)
    if (t.shape.dims[i] > 1 && t.shape.strides[i] * t.shape.dims[i] > t.shape.strides[0])
      return Error{name + "'s first dimension is not its outermost (samples interleave)"};
  return t;
}

// The filter as the legacy API can describe it: packed KCRS or KRSC. Strides of size-1
// dimensions say nothing (frameworks set them freely) and are made canonical.
std::optional<TensorShape> legacy_filter(const TensorShape& w) {
  for (auto canonical : {TensorShape::packed(w.dims), TensorShape::packed_channels_last(w.dims)}) {
    bool same = true;
    for (std::size_t i = 0; i < w.dims.size(); ++i)
      same = same && (w.dims[i] == 1 || w.strides[i] == canonical.strides[i]);
    if (same) return canonical;
  }
  return std::nullopt;
}

double scaling(const Record& op, cudnnBackendAttributeName_t name, double otherwise) {
  const AttributeValue* a = op.find(name);
  if (!a) return otherwise;
  if (a->type == CUDNN_TYPE_FLOAT)
    if (auto value = op.scalar<float>(name)) return *value;
  if (auto value = op.scalar<double>(name)) return *value;
  return otherwise;
}

cudnnHandle_t handle_of(const Record& plan, const Record& graph) {
  if (auto handle = plan.scalar<cudnnHandle_t>(CUDNN_ATTR_EXECUTION_PLAN_HANDLE)) return *handle;
  return graph.scalar<cudnnHandle_t>(CUDNN_ATTR_OPERATIONGRAPH_HANDLE).value_or(nullptr);
}

}  // namespace

Expected<GraphConvolution> plan_convolution(const Record& plan) {
  const Record* graph = graph_of(plan);
  if (!graph) return Error{"the plan's operation graph was not recorded (built from JSON?)"};
  const AttributeValue* ops = graph->find(CUDNN_ATTR_OPERATIONGRAPH_OPS);
  if (!ops || ops->descriptors.size() != 1)
    return Error{"the graph has " + std::to_string(ops ? ops->descriptors.size() : 0) +
                 " operations, not one convolution"};
  const Record* op = ops->descriptors.front().get();
  const auto names = op ? cudnn::attributes_of(op->type) : std::nullopt;
  if (!names) return Error{"the graph's operation is not a convolution"};
  auto x = tensor_of(op->descriptor(names->x), "x", true);
  auto w = tensor_of(op->descriptor(names->w), "w", false);
  auto y = tensor_of(op->descriptor(names->y), "y", true);
  for (const auto* t : {&x, &w, &y})
    if (!*t) return Error{t->error()};
  if (x->type != w->type || x->type != y->type) return Error{"the tensors' data types differ"};
  const auto data_type = cudnn::to_core(x->type);
  if (!data_type) return Error{"a data type ucudnn does not plan"};

  const Record* conv = op->descriptor(names->convolution);
  if (!conv || conv->type != CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR)
    return Error{"the convolution descriptor was not recorded"};
  const auto pre = conv->array<std::int64_t>(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
  const auto post = conv->array<std::int64_t>(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
  if (pre != post) return Error{"asymmetric padding (the legacy API pads symmetrically)"};
  const auto mode = conv->scalar<cudnnConvolutionMode_t>(CUDNN_ATTR_CONVOLUTION_CONV_MODE);
  const auto compute = conv->scalar<cudnnDataType_t>(CUDNN_ATTR_CONVOLUTION_COMP_TYPE);
  if (!mode || !compute) return Error{"the convolution's mode or compute type was not set"};
  const auto compute_type = cudnn::to_core(*compute);
  if (!compute_type) return Error{"a compute type ucudnn does not plan"};

  GraphConvolution c;
  const auto filter = legacy_filter(w->shape);
  if (!filter) return Error{"the filter's layout is neither KCRS nor KRSC"};
  c.operation = names->operation;
  ConvolutionProblem& p = c.problem;
  p.x = x->shape;
  p.w = *filter;
  p.y = y->shape;
  p.padding = pre;
  p.stride = conv->array<std::int64_t>(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
  p.dilation = conv->array<std::int64_t>(CUDNN_ATTR_CONVOLUTION_DILATIONS);
  if (p.padding.empty()) p.padding.assign(p.stride.size(), 0);
  if (p.w.dims[1] <= 0 || p.x.dims[1] % p.w.dims[1] != 0)
    return Error{"the channels do not divide into groups"};
  p.groups = p.x.dims[1] / p.w.dims[1];
  p.mode = *mode == CUDNN_CONVOLUTION ? ConvolutionMode::kConvolution
                                      : ConvolutionMode::kCrossCorrelation;
  p.data_type = *data_type;
  p.compute_type = *compute_type;
  if (auto error = p.validation_error()) return Error{*error};
  c.x_uid = x->uid;
  c.w_uid = w->uid;
  c.y_uid = y->uid;
  c.alpha = scaling(*op, names->alpha, 1);
  c.beta = scaling(*op, names->beta, 0);
  c.handle = handle_of(plan, *graph);
  if (!graph->claim) graph->claim = std::make_shared<GraphClaim>();
  c.claim = graph->claim;
  return c;
}

}  // namespace ucudnn::shim::backend
