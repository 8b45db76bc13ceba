#include "cudnn/convolution_graph.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "cudnn/convolution_operation_attributes.h"
#include "cudnn/cudnn_types.h"

namespace ucudnn::cudnn {

namespace {

// The largest power of two up to 16 dividing `bytes` (16: what cuDNN's vectorized kernels use).
std::int64_t alignment_of(std::int64_t bytes) {
  std::int64_t alignment = 16;
  while (alignment > 1 && bytes % alignment != 0) alignment /= 2;
  return alignment;
}

void check(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuDNN refuses the graph's ") + what + " (status " +
                             std::to_string(static_cast<int>(status)) + ")");
}

BackendDescriptor tensor(const TensorShape& shape, DataType type, std::int64_t uid,
                         std::int64_t alignment) {
  BackendDescriptor t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  if (!t) throw std::runtime_error("the library has no graph API");
  const cudnnDataType_t data_type = to_cudnn(type);
  check(t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, data_type), "tensor type");
  check(t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, shape.dims), "tensor dimensions");
  check(t.set(CUDNN_ATTR_TENSOR_STRIDES, shape.strides), "tensor strides");
  check(t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid), "tensor id");
  check(t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, alignment), "tensor alignment");
  check(t.finalize(), "tensor");
  return t;
}

}  // namespace

ConvolutionGraph::ConvolutionGraph(cudnnHandle_t handle, Operation operation,
                                   const ConvolutionProblem& problem, double alpha, double beta) {
  const auto element = static_cast<std::int64_t>(element_size(problem.data_type));
  // Micro-batch i starts i * strideN elements in: every offset keeps the N stride's alignment.
  sliced_alignment_ = std::min(alignment_of(problem.x.strides.at(0) * element),
                               alignment_of(problem.y.strides.at(0) * element));
  filter_alignment_ = 16;
  x_ = tensor(problem.x, problem.data_type, GraphTensorIds::x, sliced_alignment_);
  w_ = tensor(problem.w, problem.data_type, GraphTensorIds::w, filter_alignment_);
  y_ = tensor(problem.y, problem.data_type, GraphTensorIds::y, sliced_alignment_);

  convolution_ = BackendDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
  const auto spatial = static_cast<std::int64_t>(problem.spatial_rank());
  const cudnnDataType_t compute = to_cudnn(problem.compute_type);
  const cudnnConvolutionMode_t mode = to_cudnn(problem.mode);
  check(convolution_.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, compute),
        "compute type");
  check(convolution_.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, mode),
        "convolution mode");
  check(convolution_.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, spatial),
        "spatial rank");
  check(convolution_.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, problem.dilation), "dilation");
  check(convolution_.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, problem.stride), "stride");
  check(convolution_.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, problem.padding), "padding");
  check(convolution_.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, problem.padding), "padding");
  check(convolution_.finalize(), "convolution");

  const ConvolutionOperationAttributes& a = attributes_of(operation);
  operation_ = BackendDescriptor(a.type);
  const cudnnBackendDescriptor_t x = x_.get(), w = w_.get(), y = y_.get(), c = convolution_.get();
  check(operation_.set(a.x, CUDNN_TYPE_BACKEND_DESCRIPTOR, x), "x");
  check(operation_.set(a.w, CUDNN_TYPE_BACKEND_DESCRIPTOR, w), "w");
  check(operation_.set(a.y, CUDNN_TYPE_BACKEND_DESCRIPTOR, y), "y");
  check(operation_.set(a.convolution, CUDNN_TYPE_BACKEND_DESCRIPTOR, c), "convolution");
  // As the legacy calls take them: doubles for double data, else floats.
  if (problem.data_type == DataType::kDouble) {
    check(operation_.set(a.alpha, CUDNN_TYPE_DOUBLE, alpha), "alpha");
    check(operation_.set(a.beta, CUDNN_TYPE_DOUBLE, beta), "beta");
  } else {
    const float alpha_float = static_cast<float>(alpha), beta_float = static_cast<float>(beta);
    check(operation_.set(a.alpha, CUDNN_TYPE_FLOAT, alpha_float), "alpha");
    check(operation_.set(a.beta, CUDNN_TYPE_FLOAT, beta_float), "beta");
  }
  check(operation_.finalize(), "operation");

  graph_ = BackendDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  const cudnnBackendDescriptor_t op = operation_.get();
  check(graph_.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle), "handle");
  check(graph_.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, op), "operation");
  check(graph_.finalize(), "operation graph");
}

}  // namespace ucudnn::cudnn
