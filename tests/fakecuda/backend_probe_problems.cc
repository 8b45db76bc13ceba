#include "backend_probe_problems.h"

namespace ucudnn::fakecuda::probe {

const std::vector<cudnnDataType_t> kTypes = {CUDNN_DATA_FLOAT, CUDNN_DATA_DOUBLE,
                                             CUDNN_DATA_HALF,  CUDNN_DATA_BFLOAT16,
                                             CUDNN_DATA_INT8,  CUDNN_DATA_INT32};

std::vector<int64_t> packed(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (std::size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

Descriptor tensor(Backend& b, const TensorSpec& t, const std::string& name) {
  Descriptor d = b.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, name);
  b.set(d, name + ".type", CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE,
        std::vector<cudnnDataType_t>{t.type});
  b.set(d, name + ".dims", CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, t.dims);
  b.set(d, name + ".strides", CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, t.strides);
  b.set(d, name + ".uid", CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64,
        std::vector<int64_t>{t.uid});
  b.set(d, name + ".alignment", CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64,
        std::vector<int64_t>{t.alignment});
  if (t.is_virtual)
    b.set(d, name + ".virtual", CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN,
          std::vector<char>{1});
  b.finalize(d, name);
  return d;
}

Descriptor convolution(Backend& b, const ConvolutionSpec& c, const std::string& name) {
  Descriptor d = b.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, name);
  b.set(d, name + ".spatial", CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64,
        std::vector<int64_t>{c.spatial});
  b.set(d, name + ".compute", CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE,
        std::vector<cudnnDataType_t>{c.compute});
  b.set(d, name + ".mode", CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE,
        std::vector<cudnnConvolutionMode_t>{c.mode});
  b.set(d, name + ".pre", CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, c.pre);
  b.set(d, name + ".post", CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, c.post);
  b.set(d, name + ".dilation", CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, c.dilation);
  b.set(d, name + ".stride", CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, c.stride);
  b.finalize(d, name);
  return d;
}

namespace {

int64_t output_size(int64_t in, int64_t filter, int64_t pre, int64_t post, int64_t stride,
                    int64_t dilation) {
  return (in + pre + post - ((filter - 1) * dilation + 1)) / stride + 1;
}

}  // namespace

ConvolutionCase random_convolution(Draw& draw) {
  ConvolutionCase c;
  const int spatial = draw.from<int>({1, 2, 2, 2, 3});
  const int64_t n = draw.from<int64_t>({1, 2, 4}), groups = draw.from<int64_t>({1, 1, 2});
  const int64_t channels = groups * draw.from<int64_t>({1, 2, 3}),
                k = groups * draw.from<int64_t>({1, 2});
  c.conv.spatial = spatial;
  c.conv.pre.assign(spatial, 0);
  c.conv.post.assign(spatial, 0);
  c.conv.stride.assign(spatial, 1);
  c.conv.dilation.assign(spatial, 1);
  c.x.dims = {n, channels};
  c.w.dims = {k, channels / groups};
  c.y.dims = {n, k};
  for (int i = 0; i < spatial; ++i) {
    const int64_t in = draw.from<int64_t>({3, 5, 8}), filter = draw.from<int64_t>({1, 2, 3});
    c.conv.pre[i] = draw.from<int64_t>({0, 1});
    c.conv.post[i] = draw.chance(0.8) ? c.conv.pre[i] : draw.from<int64_t>({0, 2});
    c.conv.stride[i] = draw.from<int64_t>({1, 1, 2});
    c.conv.dilation[i] = draw.from<int64_t>({1, 1, 2});
    c.x.dims.push_back(in);
    c.w.dims.push_back(filter);
    c.y.dims.push_back(output_size(in, filter, c.conv.pre[i], c.conv.post[i], c.conv.stride[i],
                                   c.conv.dilation[i]));
  }
  c.x.uid = 1;
  c.w.uid = 2;
  c.y.uid = 3;
  // Perturbations that a consistent problem does not have.
  switch (draw.between(0, 9)) {
    case 0:
      c.y.dims.back() += 1;  // not the output size
      break;
    case 1:
      c.w.dims[1] += 1;  // channels that do not divide
      break;
    case 2:
      c.y.dims[1] += 1;  // output channels differ from the filter count
      break;
    case 3:
      c.y.dims[0] += 1;  // batch differs
      break;
    case 4:
      c.w.dims.push_back(1);  // rank differs
      break;
    default:
      break;
  }
  for (auto* t : {&c.x, &c.w, &c.y}) {
    t->strides = packed(t->dims);
    if (draw.chance(0.05)) t->type = CUDNN_DATA_DOUBLE;
  }
  if (draw.chance(0.1)) c.x.type = c.w.type = c.y.type = c.conv.compute = CUDNN_DATA_DOUBLE;
  if (draw.chance(0.1)) c.conv.mode = CUDNN_CONVOLUTION;
  return c;
}

}  // namespace ucudnn::fakecuda::probe
