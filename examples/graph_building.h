#pragma once
// The graph (backend) API descriptors graph_conv builds, as PyTorch's Conv_v8.cpp builds them:
// tensors (NCHW or NHWC strides, 16-byte aligned), a layer's convolution descriptor computed in
// float, the pointwise operations of a fused epilogue, and an execution plan of an engine chosen by
// its global index.
#include <cudnn.h>

#include <cstdint>
#include <vector>

#include "checked_calls.h"
#include "network_layers.h"

namespace ucudnn::examples {

using Descriptor = cudnnBackendDescriptor_t;

inline Descriptor create(cudnnBackendDescriptorType_t type) {
  Descriptor d = nullptr;
  CHECK_CUDNN(cudnnBackendCreateDescriptor(type, &d));
  return d;
}

template <typename T>
inline void set(Descriptor d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                const std::vector<T>& values) {
  CHECK_CUDNN(
      cudnnBackendSetAttribute(d, name, type, static_cast<int64_t>(values.size()), values.data()));
}

inline void set_descriptor(Descriptor d, cudnnBackendAttributeName_t name, Descriptor value) {
  CHECK_CUDNN(cudnnBackendSetAttribute(d, name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &value));
}

inline Descriptor tensor(const std::vector<int64_t>& dims, bool channels_last, cudnnDataType_t type,
                         int64_t uid, bool is_virtual = false) {
  std::vector<int64_t> strides(dims.size());
  if (channels_last) {  // N, then spatial, C innermost
    strides[1] = 1;
    int64_t s = dims[1];
    for (std::size_t i = dims.size(); i-- > 2;) {
      strides[i] = s;
      s *= dims[i];
    }
    strides[0] = s;
  } else {
    int64_t s = 1;
    for (std::size_t i = dims.size(); i-- > 0;) {
      strides[i] = s;
      s *= dims[i];
    }
  }
  Descriptor t = create(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, std::vector<cudnnDataType_t>{type});
  set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims);
  set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides);
  set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, std::vector<int64_t>{uid});
  set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, std::vector<int64_t>{16});
  if (is_virtual) set(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, std::vector<char>{1});
  CHECK_CUDNN(cudnnBackendFinalize(t));
  return t;
}

inline Descriptor convolution_descriptor(const Layer& l) {
  Descriptor c = create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const std::vector<int64_t> pad(2, l.pad), stride(2, l.stride), dilation(2, l.dilation);
  set(c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, std::vector<int64_t>{2});
  set(c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE,
      std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT});
  set(c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
      std::vector<cudnnConvolutionMode_t>{l.convolution_mode ? CUDNN_CONVOLUTION
                                                             : CUDNN_CROSS_CORRELATION});
  set(c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pad);
  set(c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, pad);
  set(c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, stride);
  set(c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, dilation);
  CHECK_CUDNN(cudnnBackendFinalize(c));
  return c;
}

inline Descriptor pointwise(cudnnPointwiseMode_t mode, Descriptor x, Descriptor b, Descriptor y,
                            std::vector<Descriptor>& owned) {
  Descriptor p = create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
  set(p, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE,
      std::vector<cudnnPointwiseMode_t>{mode});
  set(p, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE,
      std::vector<cudnnDataType_t>{CUDNN_DATA_FLOAT});
  CHECK_CUDNN(cudnnBackendFinalize(p));
  Descriptor op = create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  set_descriptor(op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, p);
  set_descriptor(op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
  if (b) set_descriptor(op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, b);
  set_descriptor(op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
  CHECK_CUDNN(cudnnBackendFinalize(op));
  owned.push_back(p);
  owned.push_back(op);
  return op;
}

// An execution plan of the graph's engine `index` with its knobs' defaults, built without the
// heuristics, as an application that enumerates engines or reuses a configuration it stored
// (cudnn-frontend's engine-config lists); null members where the engine does not take the graph.
struct IndexedPlan {
  Descriptor plan = nullptr;
  Descriptor configuration = nullptr;
};

inline IndexedPlan plan_of_engine(cudnnHandle_t handle, Descriptor graph, int64_t index,
                                  bool handle_attribute, std::vector<Descriptor>& owned) {
  Descriptor engine = create(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  owned.push_back(engine);
  set_descriptor(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, graph);
  set(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, std::vector<int64_t>{index});
  if (cudnnBackendFinalize(engine) != CUDNN_STATUS_SUCCESS) return {};
  Descriptor configuration = create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  owned.push_back(configuration);
  set_descriptor(configuration, CUDNN_ATTR_ENGINECFG_ENGINE, engine);
  if (cudnnBackendFinalize(configuration) != CUDNN_STATUS_SUCCESS) return {};
  Descriptor plan = create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  if (handle_attribute)
    set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE,
        std::vector<cudnnHandle_t>{handle});
  set_descriptor(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configuration);
  if (cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS) {
    CHECK_CUDNN(cudnnBackendDestroyDescriptor(plan));
    return {};
  }
  return {plan, configuration};
}

}  // namespace ucudnn::examples
