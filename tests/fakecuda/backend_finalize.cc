// Finalize of the double's backend descriptors: what each type requires, checked as cuDNN 9.19
// checks it (backend_differential_test.cc), and what the double derives for running graphs.
#include <algorithm>
#include <cstring>

#include "backend_descriptors.h"
#include "cost_model.h"
#include "descriptors.h"
#include "host_cost.h"
#include "trace.h"

namespace ucudnn::fakecuda {

namespace {

constexpr cudnnStatus_t kBadParam = CUDNN_STATUS_BAD_PARAM;
constexpr cudnnStatus_t kNotSupported = CUDNN_STATUS_NOT_SUPPORTED;
constexpr int kMaxTensorRank = 8;
constexpr std::int64_t kMaxSpatialDims = 6;

bool has(const BackendDescriptor& d, cudnnBackendAttributeName_t name) {
  return d.find(name) != nullptr;
}

cudnnStatus_t finalize_tensor(const BackendDescriptor& d) {
  if (!has(d, CUDNN_ATTR_TENSOR_DIMENSIONS) || !has(d, CUDNN_ATTR_TENSOR_STRIDES)) return kBadParam;
  const auto dims = array_attribute<std::int64_t>(d, CUDNN_ATTR_TENSOR_DIMENSIONS);
  const auto strides = array_attribute<std::int64_t>(d, CUDNN_ATTR_TENSOR_STRIDES);
  if (dims.size() != strides.size() || dims.empty() ||
      dims.size() > static_cast<std::size_t>(kMaxTensorRank))
    return kBadParam;
  if (std::any_of(dims.begin(), dims.end(), [](std::int64_t v) { return v < 0; }) ||
      std::any_of(strides.begin(), strides.end(), [](std::int64_t v) { return v < 0; }))
    return kBadParam;
  const auto type =
      scalar_attribute<cudnnDataType_t>(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT);
  // Unset, the alignment is 1 byte: enough for 1-byte types only.
  const auto alignment = scalar_attribute<std::int64_t>(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 1);
  if (alignment <= 0 ||
      alignment % static_cast<std::int64_t>(std::max<std::size_t>(element_bytes(type), 1)) != 0)
    return kBadParam;
  // A tensor passed by value is a scalar or a vector: at most one dimension above 1.
  if (scalar_attribute<bool>(d, CUDNN_ATTR_TENSOR_IS_BY_VALUE, false) &&
      std::count_if(dims.begin(), dims.end(), [](std::int64_t v) { return v > 1; }) > 1)
    return kBadParam;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_convolution_descriptor(const BackendDescriptor& d) {
  if (!has(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS) || !has(d, CUDNN_ATTR_CONVOLUTION_DILATIONS) ||
      !has(d, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES))
    return kBadParam;
  const auto spatial = scalar_attribute<std::int64_t>(d, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 0);
  if (spatial < 1 || spatial > kMaxSpatialDims) return kBadParam;
  const auto length = static_cast<std::size_t>(spatial);
  for (auto name : {CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES}) {
    const auto values = array_attribute<std::int64_t>(d, name);
    if (values.size() != length ||
        std::any_of(values.begin(), values.end(), [](std::int64_t v) { return v < 1; }))
      return kBadParam;
  }
  for (auto name : {CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS}) {
    if (!has(d, name)) continue;
    const auto values = array_attribute<std::int64_t>(d, name);
    if (values.size() != length ||
        std::any_of(values.begin(), values.end(), [](std::int64_t v) { return v < 0; }))
      return kBadParam;
  }
  return CUDNN_STATUS_SUCCESS;
}

struct ConvolutionNames {
  cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
};

ConvolutionNames names_of(cudnnBackendDescriptorType_t type) {
  switch (type) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
      return {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      return {CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA};
    default:
      return {CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
  }
}

Operation operation_of(cudnnBackendDescriptorType_t type) {
  switch (type) {
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
      return Operation::kBackwardData;
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      return Operation::kBackwardFilter;
    default:
      return Operation::kForward;
  }
}

const BackendDescriptor* finalized_of(const BackendDescriptor* d,
                                      cudnnBackendDescriptorType_t type) {
  return d && d->finalized && d->type == type ? d : nullptr;
}

// A scaling factor as set (FLOAT or DOUBLE), or its default.
double scaling(const BackendDescriptor& d, cudnnBackendAttributeName_t name, double otherwise) {
  const BackendAttribute* a = d.find(name);
  if (!a) return otherwise;
  if (a->type == CUDNN_TYPE_FLOAT) {
    float value;
    std::memcpy(&value, a->bytes.data(), sizeof value);
    return value;
  }
  double value;
  std::memcpy(&value, a->bytes.data(), sizeof value);
  return value;
}

cudnnTensorStruct legacy_tensor(const BackendDescriptor& t) {
  cudnnTensorStruct legacy;
  legacy.set = true;
  legacy.data_type =
      scalar_attribute<cudnnDataType_t>(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT);
  for (auto v : array_attribute<std::int64_t>(t, CUDNN_ATTR_TENSOR_DIMENSIONS))
    legacy.dims.push_back(static_cast<int>(v));
  for (auto v : array_attribute<std::int64_t>(t, CUDNN_ATTR_TENSOR_STRIDES))
    legacy.strides.push_back(static_cast<int>(v));
  return legacy;
}

// The filter as a legacy filter descriptor: packed KCRS or KRSC only, which the legacy API
// can describe; nullopt for any other layout.
std::optional<cudnnFilterStruct> legacy_filter(const BackendDescriptor& t) {
  cudnnFilterStruct legacy;
  legacy.set = true;
  legacy.data_type =
      scalar_attribute<cudnnDataType_t>(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_DATA_FLOAT);
  for (auto v : array_attribute<std::int64_t>(t, CUDNN_ATTR_TENSOR_DIMENSIONS))
    legacy.dims.push_back(static_cast<int>(v));
  const auto strides = array_attribute<std::int64_t>(t, CUDNN_ATTR_TENSOR_STRIDES);
  for (auto format : {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC})
    if (packed_strides(legacy.dims, format) == strides) {
      legacy.format = format;
      return legacy;
    }
  return std::nullopt;
}

std::int64_t tensor_uid(const BackendDescriptor& t) {
  return scalar_attribute<std::int64_t>(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, 0);
}

bool is_virtual(const BackendDescriptor& t) {
  return scalar_attribute<bool>(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, false);
}

std::int64_t output_size(std::int64_t in, std::int64_t filter, std::int64_t pre, std::int64_t post,
                         std::int64_t stride, std::int64_t dilation) {
  const std::int64_t span = (filter - 1) * dilation + 1;
  if (in + pre + post < span) return -1;
  return (in + pre + post - span) / stride + 1;
}

cudnnStatus_t finalize_convolution_operation(BackendDescriptor& d) {
  const ConvolutionNames names = names_of(d.type);
  for (auto name : {names.x, names.w, names.y, names.conv})
    if (!has(d, name)) return kBadParam;
  const BackendDescriptor* x =
      finalized_of(descriptor_attribute(d, names.x), CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const BackendDescriptor* w =
      finalized_of(descriptor_attribute(d, names.w), CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const BackendDescriptor* y =
      finalized_of(descriptor_attribute(d, names.y), CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const BackendDescriptor* conv =
      finalized_of(descriptor_attribute(d, names.conv), CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  if (!x || !w || !y || !conv) return kBadParam;
  const auto xd = array_attribute<std::int64_t>(*x, CUDNN_ATTR_TENSOR_DIMENSIONS);
  const auto wd = array_attribute<std::int64_t>(*w, CUDNN_ATTR_TENSOR_DIMENSIONS);
  const auto yd = array_attribute<std::int64_t>(*y, CUDNN_ATTR_TENSOR_DIMENSIONS);
  const auto spatial =
      scalar_attribute<std::int64_t>(*conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 0);
  const auto rank = static_cast<std::size_t>(spatial + 2);
  if (xd.size() != rank || wd.size() != rank || yd.size() != rank) return kBadParam;
  if (wd[1] <= 0 || xd[1] % wd[1] != 0) return kBadParam;
  const std::int64_t groups = xd[1] / wd[1];
  if (groups <= 0 || wd[0] % groups != 0 || yd[1] != wd[0] || yd[0] != xd[0]) return kBadParam;
  const auto pre = array_attribute<std::int64_t>(*conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
  const auto post = array_attribute<std::int64_t>(*conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
  const auto stride = array_attribute<std::int64_t>(*conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
  const auto dilation = array_attribute<std::int64_t>(*conv, CUDNN_ATTR_CONVOLUTION_DILATIONS);
  std::vector<std::int64_t> before(static_cast<std::size_t>(spatial), 0), after = before;
  if (!pre.empty()) before = pre;
  if (!post.empty()) after = post;
  for (std::size_t i = 0; i < before.size(); ++i)
    if (yd[i + 2] != output_size(xd[i + 2], wd[i + 2], before[i], after[i], stride[i], dilation[i]))
      return kBadParam;

  // What the double's engines run: the legacy convolution, where the legacy API can say it.
  BackendConvolution c;
  c.operation = operation_of(d.type);
  c.x = legacy_tensor(*x);
  c.y = legacy_tensor(*y);
  c.x_uid = tensor_uid(*x);
  c.w_uid = tensor_uid(*w);
  c.y_uid = tensor_uid(*y);
  c.x_virtual = is_virtual(*x);
  c.y_virtual = is_virtual(*y);
  c.alpha = scaling(d, names.alpha, 1);
  c.beta = scaling(d, names.beta, 0);
  c.conv.set = before == after;  // the legacy API pads symmetrically
  c.conv.padding.assign(before.begin(), before.end());
  c.conv.stride.assign(stride.begin(), stride.end());
  c.conv.dilation.assign(dilation.begin(), dilation.end());
  c.conv.groups = static_cast<int>(groups);
  c.conv.mode = scalar_attribute<cudnnConvolutionMode_t>(*conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE,
                                                         CUDNN_CONVOLUTION);
  c.conv.compute_type =
      scalar_attribute<cudnnDataType_t>(*conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT);
  if (auto filter = legacy_filter(*w))
    c.w = *filter;
  else
    c.conv.set = false;  // a layout the legacy API cannot describe: no engine runs it
  d.convolution = std::move(c);
  return CUDNN_STATUS_SUCCESS;
}

bool binary(cudnnPointwiseMode_t mode) {
  return mode == CUDNN_POINTWISE_ADD || mode == CUDNN_POINTWISE_MUL;
}

cudnnStatus_t finalize_pointwise_operation(BackendDescriptor& d) {
  const BackendDescriptor* mode =
      finalized_of(descriptor_attribute(d, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR),
                   CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  const BackendDescriptor* x =
      finalized_of(descriptor_attribute(d, CUDNN_ATTR_OPERATION_POINTWISE_XDESC),
                   CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const BackendDescriptor* y =
      finalized_of(descriptor_attribute(d, CUDNN_ATTR_OPERATION_POINTWISE_YDESC),
                   CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  const BackendDescriptor* b =
      finalized_of(descriptor_attribute(d, CUDNN_ATTR_OPERATION_POINTWISE_BDESC),
                   CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  BackendPointwise p;
  p.mode = mode ? scalar_attribute<cudnnPointwiseMode_t>(*mode, CUDNN_ATTR_POINTWISE_MODE,
                                                         CUDNN_POINTWISE_ADD)
                : CUDNN_POINTWISE_ADD;
  // As cuDNN 9.19 answers (every subset probed): x and y come together, a binary mode's b with
  // them; an operation with no tensor at all finalizes too, but no graph takes it.
  if (!x != !y || (binary(p.mode) && !b != !x)) return kBadParam;
  if (!x) return CUDNN_STATUS_SUCCESS;
  p.x = legacy_tensor(*x);
  p.y = legacy_tensor(*y);
  p.x_uid = tensor_uid(*x);
  p.y_uid = tensor_uid(*y);
  p.x_virtual = is_virtual(*x);
  p.y_virtual = is_virtual(*y);
  if (b) {
    p.has_b = true;
    p.b = legacy_tensor(*b);
    p.b_uid = tensor_uid(*b);
    p.b_virtual = is_virtual(*b);
  }
  p.alpha1 = scaling(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1, 1);
  p.alpha2 = scaling(d, CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2, 1);
  d.pointwise = std::move(p);
  return CUDNN_STATUS_SUCCESS;
}

// The patterns the double runs: a lone convolution, or a forward convolution into a virtual
// tensor that pointwise operations (ADD, MUL, RELU_FWD, IDENTITY) carry, one after the other
// on virtual tensors, to the graph's one real output.
BackendGraph graph_of(const std::vector<Snapshot>& ops) {
  BackendGraph g;
  std::vector<const BackendDescriptor*> convolutions, pointwise;
  for (const auto& op : ops) {
    if (op->convolution)
      convolutions.push_back(op.get());
    else if (op->pointwise)
      pointwise.push_back(op.get());
    else
      return g;
  }
  if (convolutions.size() != 1) return g;
  const BackendConvolution& c = *convolutions.front()->convolution;
  g.convolution = c;
  if (pointwise.empty()) {
    g.runnable = !c.x_virtual && !c.y_virtual && c.conv.set;
  } else {
    if (c.operation != Operation::kForward || !c.y_virtual || c.x_virtual || !c.conv.set) return g;
    std::int64_t carried = c.y_uid;
    std::vector<const BackendDescriptor*> left = pointwise;
    while (!left.empty()) {
      auto next = std::find_if(left.begin(), left.end(), [&](const BackendDescriptor* op) {
        return op->pointwise->x_uid == carried && op->pointwise->x_virtual;
      });
      if (next == left.end()) return g;
      const BackendPointwise& p = *(*next)->pointwise;
      const bool known = binary(p.mode) || p.mode == CUDNN_POINTWISE_RELU_FWD ||
                         p.mode == CUDNN_POINTWISE_IDENTITY;
      if (!known || binary(p.mode) != p.has_b || (p.has_b && p.b_virtual) || p.y.dims != c.y.dims)
        return g;
      g.epilogue.push_back(p);
      carried = p.y_uid;
      left.erase(next);
      if (!p.y_virtual && !left.empty()) return g;
    }
    g.runnable = !g.epilogue.back().y_virtual;
  }
  g.engine_count = !g.runnable ? 0 : g.epilogue.empty() ? algorithm_count(c.operation) : 1;
  return g;
}

cudnnStatus_t finalize_graph(BackendDescriptor& d) {
  const BackendAttribute* ops = d.find(CUDNN_ATTR_OPERATIONGRAPH_OPS);
  if (!ops || ops->descriptors.empty()) return kBadParam;
  for (const Snapshot& op : ops->descriptors)
    if (op && op->type == CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR && !op->pointwise)
      return kBadParam;  // one that finalized without tensors
  d.graph = std::make_shared<const BackendGraph>(graph_of(ops->descriptors));
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_engine(BackendDescriptor& d) {
  const BackendDescriptor* graph =
      finalized_of(descriptor_attribute(d, CUDNN_ATTR_ENGINE_OPERATION_GRAPH),
                   CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (!graph || !has(d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX)) return kBadParam;
  auto engine = engine_of(*graph->graph,
                          scalar_attribute<std::int64_t>(d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, -1));
  if (!engine) return kNotSupported;
  d.graph = graph->graph;
  d.engine = engine;
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_engine_configuration(BackendDescriptor& d) {
  const BackendDescriptor* engine = finalized_of(
      descriptor_attribute(d, CUDNN_ATTR_ENGINECFG_ENGINE), CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  if (!engine) return kBadParam;
  d.graph = engine->graph;
  d.engine = engine->engine;
  // Knob choices: only the knobs the engine takes, at values it takes (cost_model.h).
  std::int64_t split = 1;
  if (const BackendAttribute* choices = d.find(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES)) {
    for (const Snapshot& choice : choices->descriptors) {
      if (!choice || choice->type != CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR) return kBadParam;
      const auto type = static_cast<std::int64_t>(scalar_attribute<cudnnBackendKnobType_t>(
          *choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, CUDNN_KNOB_TYPE_COUNTS));
      const auto value =
          scalar_attribute<std::int64_t>(*choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, -1);
      if (!d.engine || !d.engine->knobs) return kNotSupported;
      if (type == kSplitKnob)
        split = value;
      else if (type != kTileKnob || value != 0)
        return kNotSupported;
    }
  }
  if (split != 1) {
    if (!d.graph) return kBadParam;
    d.engine = engine_of(*d.graph, d.engine->index, split);
    if (!d.engine) return kNotSupported;
  }
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_heuristics(BackendDescriptor& d) {
  const BackendDescriptor* graph =
      finalized_of(descriptor_attribute(d, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH),
                   CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (!graph || !has(d, CUDNN_ATTR_ENGINEHEUR_MODE)) return kBadParam;
  d.graph = graph->graph;
  // cuDNN runs its heuristics here, on the host: counted, as what a warm-up pays for.
  trace_line("heuristics");
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_plan(BackendDescriptor& d) {
  if (!has(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG)) return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
  const BackendDescriptor* configuration =
      finalized_of(descriptor_attribute(d, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG),
                   CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  if (!configuration) return CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED;
  d.graph = configuration->graph;
  d.engine = configuration->engine;
  if (d.graph && d.engine && !behavior_notes(*d.graph, *d.engine).empty())
    charge_host_cost(HostCost::kPlanCompilation);
  return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t finalize_variant_pack(const BackendDescriptor& d) {
  const BackendAttribute* uids = d.find(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
  const BackendAttribute* pointers = d.find(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
  const std::int64_t uid_count = uids ? uids->count : 0,
                     pointer_count = pointers ? pointers->count : 0;
  return uid_count == pointer_count ? CUDNN_STATUS_SUCCESS : kBadParam;
}

}  // namespace

cudnnStatus_t finalize_backend(BackendDescriptor& d) {
  switch (d.type) {
    case CUDNN_BACKEND_TENSOR_DESCRIPTOR:
      return finalize_tensor(d);
    case CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR:
      return finalize_convolution_descriptor(d);
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR:
    case CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR:
      return finalize_convolution_operation(d);
    case CUDNN_BACKEND_POINTWISE_DESCRIPTOR:
      return CUDNN_STATUS_SUCCESS;
    case CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR:
      return finalize_pointwise_operation(d);
    case CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR:
      return finalize_graph(d);
    case CUDNN_BACKEND_ENGINE_DESCRIPTOR:
      return finalize_engine(d);
    case CUDNN_BACKEND_ENGINECFG_DESCRIPTOR:
      return finalize_engine_configuration(d);
    case CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR:
      return finalize_heuristics(d);
    case CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR:
      return finalize_plan(d);
    case CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR:
      return finalize_variant_pack(d);
    case CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR:
      return CUDNN_STATUS_SUCCESS;
    default:
      return kNotSupported;
  }
}

}  // namespace ucudnn::fakecuda
