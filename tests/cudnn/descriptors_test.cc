// Against the real libcudnn.so.9: its descriptor functions work without a GPU.
#include <gtest/gtest.h>

#include "cudnn/cudnn_api.h"
#include "cudnn/micro_batch_descriptors.h"
#include "cudnn/problem_from_descriptors.h"
#include "support/random_seed.h"

namespace ucudnn::cudnn {
namespace {

class RealCudnn : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!api().complete()) GTEST_SKIP() << "libcudnn.so.9 not loadable: missing " << api().missing;
  }
  const CudnnApi& api() { return cudnn_api(); }
};

// Owns the caller-side descriptors a framework would create.
struct CallerDescriptors {
  const CudnnApi& api;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  ~CallerDescriptors() {
    if (x) api.cudnnDestroyTensorDescriptor(x);
    if (y) api.cudnnDestroyTensorDescriptor(y);
    if (w) ::cudnnDestroyFilterDescriptor(w);
    if (conv) ::cudnnDestroyConvolutionDescriptor(conv);
  }
};

void expect_reads_back(const CudnnApi& api, cudnnTensorDescriptor_t descriptor,
                       const TensorShape& shape, cudnnDataType_t type) {
  int rank = 0, dims[8], strides[8];
  cudnnDataType_t got_type;
  ASSERT_EQ(api.cudnnGetTensorNdDescriptor(descriptor, 8, &got_type, &rank, dims, strides),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got_type, type);
  ASSERT_EQ(rank, static_cast<int>(shape.dims.size()));
  for (int i = 0; i < rank; ++i) {
    EXPECT_EQ(dims[i], shape.dims[i]) << "dim " << i;
    EXPECT_EQ(strides[i], shape.strides[i]) << "stride " << i;
  }
}

TEST_F(RealCudnn, DescriptorsRoundTripThroughTheProblemAndMicroBatches) {
  testing::SeededRandom random;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = static_cast<int>(random.uniform(2, 16)),
              groups = static_cast<int>(random.uniform(1, 3));
    const int c = groups * static_cast<int>(random.uniform(1, 8)),
              k = groups * static_cast<int>(random.uniform(1, 8));
    const int h = static_cast<int>(random.uniform(10, 20)),
              w = static_cast<int>(random.uniform(10, 20));
    const int r = static_cast<int>(random.uniform(1, 3)) * 2 - 1,
              pad = static_cast<int>(random.uniform(0, 2));
    const int stride = static_cast<int>(random.uniform(1, 2)),
              dilation = static_cast<int>(random.uniform(1, 2));
    const bool nhwc = random.chance(0.5), conv_mode = random.chance(0.5),
               tensor_op = random.chance(0.5), no_reorder = random.chance(0.5);
    const auto type = random.chance(0.5) ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF;
    SCOPED_TRACE("trial " + std::to_string(trial));

    CallerDescriptors d{api()};
    const int p = (h + 2 * pad - dilation * (r - 1) - 1) / stride + 1,
              q = (w + 2 * pad - dilation * (r - 1) - 1) / stride + 1;
    const auto x_shape =
        nhwc ? TensorShape::packed_channels_last({n, c, h, w}) : TensorShape::packed({n, c, h, w});
    const auto y_shape =
        nhwc ? TensorShape::packed_channels_last({n, k, p, q}) : TensorShape::packed({n, k, p, q});
    auto set = [&](cudnnTensorDescriptor_t& t, const TensorShape& s) {
      ASSERT_EQ(api().cudnnCreateTensorDescriptor(&t), CUDNN_STATUS_SUCCESS);
      std::vector<int> dims(s.dims.begin(), s.dims.end()),
          strides(s.strides.begin(), s.strides.end());
      ASSERT_EQ(api().cudnnSetTensorNdDescriptor(t, type, 4, dims.data(), strides.data()),
                CUDNN_STATUS_SUCCESS);
    };
    set(d.x, x_shape);
    set(d.y, y_shape);
    ASSERT_EQ(::cudnnCreateFilterDescriptor(&d.w), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(::cudnnSetFilter4dDescriptor(d.w, type, nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                           k, c / groups, r, r),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(::cudnnCreateConvolutionDescriptor(&d.conv), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(::cudnnSetConvolution2dDescriptor(
                  d.conv, pad, pad, stride, stride, dilation, dilation,
                  conv_mode ? CUDNN_CONVOLUTION : CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(::cudnnSetConvolutionGroupCount(d.conv, groups), CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(::cudnnSetConvolutionMathType(d.conv,
                                            tensor_op ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH),
              CUDNN_STATUS_SUCCESS);
    ASSERT_EQ(::cudnnSetConvolutionReorderType(
                  d.conv, no_reorder ? CUDNN_NO_REORDER : CUDNN_DEFAULT_REORDER),
              CUDNN_STATUS_SUCCESS);

    ConvolutionProblem problem;
    const auto status = problem_from_descriptors(api(), d.x, d.w, d.conv, d.y, problem);
    ASSERT_TRUE(status.ok()) << status.message;
    EXPECT_EQ(problem.x, x_shape);
    EXPECT_EQ(problem.y, y_shape);
    EXPECT_EQ(problem.w.dims, (std::vector<std::int64_t>{k, c / groups, r, r}));
    EXPECT_EQ(problem.w, nhwc ? TensorShape::packed_channels_last({k, c / groups, r, r})
                              : TensorShape::packed({k, c / groups, r, r}));
    EXPECT_EQ(problem.padding, (std::vector<std::int64_t>{pad, pad}));
    EXPECT_EQ(problem.stride, (std::vector<std::int64_t>{stride, stride}));
    EXPECT_EQ(problem.dilation, (std::vector<std::int64_t>{dilation, dilation}));
    EXPECT_EQ(problem.groups, groups);
    EXPECT_EQ(problem.mode,
              conv_mode ? ConvolutionMode::kConvolution : ConvolutionMode::kCrossCorrelation);
    EXPECT_EQ(problem.math_type, tensor_op ? MathType::kTensorOp : MathType::kDefault);
    EXPECT_EQ(problem.data_type, type == CUDNN_DATA_FLOAT ? DataType::kFloat : DataType::kHalf);
    EXPECT_EQ(problem.compute_type, DataType::kFloat);
    EXPECT_EQ(problem.reorder, no_reorder ? ReorderType::kNoReorder : ReorderType::kDefault);

    const auto b = random.uniform(1, n);
    MicroBatchDescriptors micro(api(), problem, b);
    auto x_micro = x_shape, y_micro = y_shape;
    x_micro.dims[0] = b;
    y_micro.dims[0] = b;
    expect_reads_back(api(), micro.x.get(), x_micro, type);
    expect_reads_back(api(), micro.y.get(), y_micro, type);
    // The plan's own filter and convolution descriptors: every field, read back by cuDNN.
    ConvolutionProblem back;
    const auto reread = problem_from_descriptors(api(), micro.x.get(), micro.w.get(),
                                                 micro.convolution.get(), micro.y.get(), back);
    ASSERT_TRUE(reread.ok()) << reread.message;
    EXPECT_EQ(back, problem.with_batch(b));
  }
}

// A 3x3, pad 1 convolution of an N=2, 8x8 image, with the given channels and types.
struct SimpleSpec {
  cudnnTensorFormat_t format;
  cudnnDataType_t x_type, y_type, w_type, compute_type;
  int x_channels, y_channels, w_in_channels;
};

void describe(const CudnnApi& api, CallerDescriptors& d, const SimpleSpec& spec) {
  ASSERT_EQ(api.cudnnCreateTensorDescriptor(&d.x), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(api.cudnnCreateTensorDescriptor(&d.y), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(::cudnnSetTensor4dDescriptor(d.x, spec.format, spec.x_type, 2, spec.x_channels, 8, 8),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(::cudnnSetTensor4dDescriptor(d.y, spec.format, spec.y_type, 2, spec.y_channels, 8, 8),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(::cudnnCreateFilterDescriptor(&d.w), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(::cudnnSetFilter4dDescriptor(d.w, spec.w_type, spec.format, spec.y_channels,
                                         spec.w_in_channels, 3, 3),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(::cudnnCreateConvolutionDescriptor(&d.conv), CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(::cudnnSetConvolution2dDescriptor(d.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                              spec.compute_type),
            CUDNN_STATUS_SUCCESS);
}

// A null descriptor is BAD_PARAM at once; shapes that do not fit are left for cuDNN to answer
// (passed through), since cuDNN 9 lets descriptors hold more than ucudnn can plan.
TEST_F(RealCudnn, NullDescriptorsAreBadParamMismatchedOnesPassThrough) {
  ConvolutionProblem problem;
  auto status = problem_from_descriptors(api(), nullptr, nullptr, nullptr, nullptr, problem);
  EXPECT_EQ(status.status, CUDNN_STATUS_BAD_PARAM);
  EXPECT_NE(status.message.find("x descriptor is null"), std::string::npos) << status.message;

  CallerDescriptors d{api()};
  describe(api(), d,
           {CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT, CUDNN_DATA_FLOAT,
            CUDNN_DATA_FLOAT, 3, 4, 5});
  status = problem_from_descriptors(api(), d.x, d.w, d.conv, d.y, problem);
  EXPECT_NE(status.status, CUDNN_STATUS_SUCCESS);
  EXPECT_TRUE(status.unsupported);
  EXPECT_NE(status.message.find("w.dims[1] 5"), std::string::npos) << status.message;
}

TEST_F(RealCudnn, MixedDataTypesAreUnsupportedNotInvalid) {
  CallerDescriptors d{api()};
  describe(api(), d,
           {CUDNN_TENSOR_NHWC, CUDNN_DATA_INT8, CUDNN_DATA_FLOAT, CUDNN_DATA_INT8, CUDNN_DATA_INT32,
            4, 4, 4});
  ConvolutionProblem problem;
  const auto status = problem_from_descriptors(api(), d.x, d.w, d.conv, d.y, problem);
  EXPECT_TRUE(status.unsupported) << status.message;
  EXPECT_EQ(status.status, CUDNN_STATUS_NOT_SUPPORTED);
}

}  // namespace
}  // namespace ucudnn::cudnn
