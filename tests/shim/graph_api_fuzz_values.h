#pragma once
// What graph_api_fuzz_test.cc's random actions are made of: an attribute of the graph API drawn
// among those convolutions use, and a value of a drawn type for it, mostly sensible for
// convolutions (descriptors of the pool as twins, one made through the shim and one straight on
// the double; scalars; buffers; arrays of dimensions, strides and ids).
#include <cudnn.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <vector>

#include "support/random_seed.h"

namespace ucudnn::testing {

using Descriptor = cudnnBackendDescriptor_t;

// A value as each side is given it: the same bytes, but descriptors are each side's twins.
struct FuzzValue {
  cudnnBackendAttributeType_t type;
  std::vector<unsigned char> shim_bytes, double_bytes;
  int64_t count;
};

template <typename T>
inline FuzzValue scalars(cudnnBackendAttributeType_t type, std::vector<T> values) {
  FuzzValue v{type, {}, {}, static_cast<int64_t>(values.size())};
  v.shim_bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(v.shim_bytes.data(), values.data(), v.shim_bytes.size());
  v.double_bytes = v.shim_bytes;
  return v;
}

// A value of a drawn type: `draw_index` draws a descriptor of the pool, `of(shim, i)` is its twin
// on one side; `pointers` are device buffers.
inline FuzzValue any_value(SeededRandom& random, const std::function<std::size_t()>& draw_index,
                           const std::function<Descriptor(bool shim, std::size_t)>& of,
                           cudnnHandle_t handle, const std::vector<void*>& pointers) {
  switch (random.uniform(0, 9)) {
    case 0:
    case 1: {  // descriptors of the pool, twins on each side
      const int count = random.chance(0.8) ? 1 : random.uniform(0, 3);
      std::vector<Descriptor> s, d;
      for (int i = 0; i < count; ++i) {
        const std::size_t at = draw_index();
        s.push_back(of(true, at));
        d.push_back(of(false, at));
      }
      FuzzValue v{CUDNN_TYPE_BACKEND_DESCRIPTOR, {}, {}, count};
      v.shim_bytes.resize(s.size() * sizeof(Descriptor));
      v.double_bytes.resize(d.size() * sizeof(Descriptor));
      if (count) {
        std::memcpy(v.shim_bytes.data(), s.data(), v.shim_bytes.size());
        std::memcpy(v.double_bytes.data(), d.data(), v.double_bytes.size());
      }
      return v;
    }
    case 2:
      return scalars<cudnnDataType_t>(CUDNN_TYPE_DATA_TYPE,
                                      {random.chance(0.8) ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE});
    case 3:
      return scalars<float>(CUDNN_TYPE_FLOAT, {random.chance(0.5) ? 1.0f : 0.5f});
    case 4:
      return scalars<double>(CUDNN_TYPE_DOUBLE, {0.25});
    case 5:
      return scalars<cudnnConvolutionMode_t>(CUDNN_TYPE_CONVOLUTION_MODE,
                                             {CUDNN_CROSS_CORRELATION});
    case 6:
      return scalars<char>(CUDNN_TYPE_BOOLEAN, {static_cast<char>(random.uniform(0, 1))});
    case 7:
      return scalars<cudnnHandle_t>(CUDNN_TYPE_HANDLE, {random.chance(0.9) ? handle : nullptr});
    case 8: {
      std::vector<void*> chosen = pointers;
      chosen.resize(static_cast<std::size_t>(random.uniform(1, 3)));
      return scalars<void*>(CUDNN_TYPE_VOID_PTR, chosen);
    }
    default: {  // dims, strides, paddings, uids, ids of engines
      static const std::vector<std::vector<int64_t>> kArrays = {
          {4, 8, 8, 8},
          {512, 64, 8, 1},
          {8, 8, 3, 3},
          {72, 9, 3, 1},
          {1, 1},
          {2},
          {0},
          {int64_t{'x'}, int64_t{'w'}, int64_t{'y'}},
          {int64_t{'x'}},
          {-1},
          {}};
      return scalars<int64_t>(CUDNN_TYPE_INT64, kArrays[random.uniform(0, kArrays.size() - 1)]);
    }
  }
}

inline cudnnBackendAttributeName_t any_attribute(SeededRandom& random) {
  static const cudnnBackendAttributeName_t kNames[] = {
      CUDNN_ATTR_TENSOR_DATA_TYPE,
      CUDNN_ATTR_TENSOR_DIMENSIONS,
      CUDNN_ATTR_TENSOR_STRIDES,
      CUDNN_ATTR_TENSOR_UNIQUE_ID,
      CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT,
      CUDNN_ATTR_TENSOR_IS_VIRTUAL,
      CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS,
      CUDNN_ATTR_CONVOLUTION_COMP_TYPE,
      CUDNN_ATTR_CONVOLUTION_CONV_MODE,
      CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS,
      CUDNN_ATTR_CONVOLUTION_POST_PADDINGS,
      CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
      CUDNN_ATTR_CONVOLUTION_DILATIONS,
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
      CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
      CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
      CUDNN_ATTR_OPERATIONGRAPH_OPS,
      CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
      CUDNN_ATTR_ENGINE_OPERATION_GRAPH,
      CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
      CUDNN_ATTR_ENGINECFG_ENGINE,
      CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH,
      CUDNN_ATTR_ENGINEHEUR_MODE,
      CUDNN_ATTR_ENGINEHEUR_RESULTS,
      CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
      CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
      CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
      CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE,
      CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
      CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
      CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
      CUDNN_ATTR_POINTWISE_MODE,
      CUDNN_ATTR_ENGINE_NUMERICAL_NOTE};
  return kNames[random.uniform(0, std::size(kNames) - 1)];
}

}  // namespace ucudnn::testing
