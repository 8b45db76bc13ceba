// The cuDNN double's descriptors, handles and version queries: what is set reads back,
// invalid arguments get cuDNN's statuses.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstring>

#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

TEST(FakeCudnnLibrary, ReportsTheHeaderVersionAndStatusNames) {
  EXPECT_EQ(cudnnGetVersion(), static_cast<size_t>(CUDNN_VERSION));
  EXPECT_EQ(cudnnGetCudartVersion(), static_cast<size_t>(CUDART_VERSION));
  int major = 0, minor = -1, patch = -1;
  EXPECT_EQ(cudnnGetProperty(MAJOR_VERSION, &major), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetProperty(MINOR_VERSION, &minor), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetProperty(PATCH_LEVEL, &patch), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(major * 10000 + minor * 100 + patch, CUDNN_VERSION);
  EXPECT_EQ(cudnnGetProperty(MAJOR_VERSION, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_BAD_PARAM), "CUDNN_STATUS_BAD_PARAM");
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_NOT_SUPPORTED), "CUDNN_STATUS_NOT_SUPPORTED");
}

TEST(FakeCudnnLibrary, HandleKeepsItsStream) {
  EXPECT_EQ(cudnnCreate(nullptr), CUDNN_STATUS_BAD_PARAM);
  cudnnHandle_t handle = nullptr;
  ASSERT_EQ(cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
  cudaStream_t stream = nullptr, got = reinterpret_cast<cudaStream_t>(0x10);
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  EXPECT_EQ(cudnnGetStream(handle, &got), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got, nullptr);  // a new handle runs on the null stream
  EXPECT_EQ(cudnnSetStream(handle, stream), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetStream(handle, &got), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(got, stream);
  EXPECT_EQ(cudnnSetStream(nullptr, stream), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetStream(handle, nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroy(handle), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroy(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

TEST(FakeCudnnDescriptors, TensorRoundTrips) {
  cudnnTensorDescriptor_t t = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&t), CUDNN_STATUS_SUCCESS);
  cudnnDataType_t type;
  int n, c, h, w, ns, cs, hs, ws;
  // An unset descriptor reads back empty (as cuDNN 9.19; a convolution refuses it).
  EXPECT_EQ(cudnnGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ((std::vector<int>{n, c, h, w, ns, cs, hs, ws}), std::vector<int>(8, 0));

  ASSERT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, 3, 4, 5),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(type, CUDNN_DATA_FLOAT);
  EXPECT_EQ((std::vector<int>{n, c, h, w, ns, cs, hs, ws}),
            (std::vector<int>{2, 3, 4, 5, 60, 20, 5, 1}));

  ASSERT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_DOUBLE, 2, 3, 4, 5),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(type, CUDNN_DATA_DOUBLE);
  EXPECT_EQ((std::vector<int>{n, c, h, w, ns, cs, hs, ws}),
            (std::vector<int>{2, 3, 4, 5, 60, 1, 15, 3}));
  size_t bytes = 0;
  EXPECT_EQ(cudnnGetTensorSizeInBytes(t, &bytes), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 120u * 8);

  ASSERT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 2, 3, 4, 5, 100, 20, 5, 1),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetTensorSizeInBytes(t, &bytes), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 160u * 4);  // the gap between images is part of the span

  const int dims[] = {2, 3, 4, 5, 6}, strides[] = {400, 1, 100, 20, 3};
  ASSERT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 5, dims, strides),
            CUDNN_STATUS_SUCCESS);
  int rank = 0, got_dims[8] = {}, got_strides[8] = {};
  ASSERT_EQ(cudnnGetTensorNdDescriptor(t, 8, &type, &rank, got_dims, got_strides),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(rank, 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(got_dims[i], dims[i]);
    EXPECT_EQ(got_strides[i], strides[i]);
  }
  // A smaller request fills only what it asked for but still reports the rank.
  int few_dims[2] = {}, few_strides[2] = {};
  ASSERT_EQ(cudnnGetTensorNdDescriptor(t, 2, &type, &rank, few_dims, few_strides),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(rank, 5);
  EXPECT_EQ(few_dims[1], 3);
  // Not 4-d: the first four dimensions, as cuDNN 9.19.
  EXPECT_EQ(cudnnGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ((std::vector<int>{n, c, h, w, ns, cs, hs, ws}),
            (std::vector<int>{2, 3, 4, 5, 400, 1, 100, 20}));

  ASSERT_EQ(cudnnSetTensorNdDescriptorEx(t, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, 4, dims),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(cudnnGetTensor4dDescriptor(t, &type, &n, &c, &h, &w, &ns, &cs, &hs, &ws),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ((std::vector<int>{ns, cs, hs, ws}), (std::vector<int>{60, 1, 15, 3}));
  EXPECT_EQ(cudnnDestroyTensorDescriptor(t), CUDNN_STATUS_SUCCESS);
}

TEST(FakeCudnnDescriptors, TensorSettersRejectWhatCudnnRejects) {
  cudnnTensorDescriptor_t t = nullptr;
  ASSERT_EQ(cudnnCreateTensorDescriptor(&t), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnCreateTensorDescriptor(nullptr), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(nullptr, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, 1),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 1, 1, 1),
            CUDNN_STATUS_BAD_PARAM);
  // A zero stride only where the dimension is 1; negative strides pass (cuDNN 9.19).
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 1, 1, 2, 1, 1, 1, 0, 1),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 1, 1, 1, 1, 1, 1, 0, 1),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnSetTensor4dDescriptorEx(t, CUDNN_DATA_FLOAT, 1, 2, 1, 3, 1, -3, 1, 1),
            CUDNN_STATUS_SUCCESS);
  size_t bytes = 0;
  EXPECT_EQ(cudnnGetTensorSizeInBytes(t, &bytes), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(bytes, 6u * 4) << "the span counts |stride|";
  const int dims[] = {1, 2, 3, 4};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 4, dims, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 9, dims, dims),
            CUDNN_STATUS_NOT_SUPPORTED);  // over CUDNN_DIM_MAX
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_FLOAT, 1, dims, dims), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetTensorNdDescriptor(t, CUDNN_DATA_INT64, 4, dims, dims), CUDNN_STATUS_BAD_PARAM);
  int rank;
  cudnnDataType_t type;
  EXPECT_EQ(cudnnGetTensorNdDescriptor(t, 4, &type, &rank, nullptr, nullptr),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyTensorDescriptor(t), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyTensorDescriptor(nullptr), CUDNN_STATUS_SUCCESS);
}

TEST(FakeCudnnDescriptors, FilterRoundTripsInBothFormats) {
  cudnnFilterDescriptor_t f = nullptr;
  ASSERT_EQ(cudnnCreateFilterDescriptor(&f), CUDNN_STATUS_SUCCESS);
  for (cudnnTensorFormat_t format : {CUDNN_TENSOR_NCHW, CUDNN_TENSOR_NHWC}) {
    ASSERT_EQ(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, format, 8, 3, 5, 7),
              CUDNN_STATUS_SUCCESS);
    cudnnDataType_t type;
    cudnnTensorFormat_t got_format;
    int k, c, h, w;
    ASSERT_EQ(cudnnGetFilter4dDescriptor(f, &type, &got_format, &k, &c, &h, &w),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(got_format, format);
    EXPECT_EQ((std::vector<int>{k, c, h, w}), (std::vector<int>{8, 3, 5, 7}));
    size_t bytes = 0;
    EXPECT_EQ(cudnnGetFilterSizeInBytes(f, &bytes), CUDNN_STATUS_SUCCESS);
    EXPECT_EQ(bytes, 8u * 3 * 5 * 7 * 4);
  }
  const int dims[] = {4, 2, 3, 3, 3};
  ASSERT_EQ(cudnnSetFilterNdDescriptor(f, CUDNN_DATA_DOUBLE, CUDNN_TENSOR_NHWC, 5, dims),
            CUDNN_STATUS_SUCCESS);
  cudnnDataType_t type;
  cudnnTensorFormat_t format;
  int rank = 0, got[8] = {};
  ASSERT_EQ(cudnnGetFilterNdDescriptor(f, 8, &type, &format, &rank, got), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(type, CUDNN_DATA_DOUBLE);
  EXPECT_EQ(format, CUDNN_TENSOR_NHWC);
  ASSERT_EQ(rank, 5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(got[i], dims[i]);
  EXPECT_EQ(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 8, 0, 5, 7),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW_VECT_C, 8, 4, 5, 7),
            CUDNN_STATUS_NOT_SUPPORTED);
  EXPECT_EQ(cudnnGetFilterNdDescriptor(nullptr, 8, &type, &format, &rank, got),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyFilterDescriptor(f), CUDNN_STATUS_SUCCESS);
}

TEST(FakeCudnnDescriptors, ConvolutionRoundTrips) {
  cudnnConvolutionDescriptor_t conv = nullptr;
  ASSERT_EQ(cudnnCreateConvolutionDescriptor(&conv), CUDNN_STATUS_SUCCESS);
  int groups = 0;
  cudnnMathType_t math;
  cudnnReorderType_t reorder;
  EXPECT_EQ(cudnnGetConvolutionGroupCount(conv, &groups), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(groups, 1);
  EXPECT_EQ(cudnnGetConvolutionMathType(conv, &math), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(math, CUDNN_DEFAULT_MATH);
  EXPECT_EQ(cudnnGetConvolutionReorderType(conv, &reorder), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(reorder, CUDNN_DEFAULT_REORDER);

  ASSERT_EQ(
      cudnnSetConvolution2dDescriptor(conv, 1, 2, 3, 4, 5, 6, CUDNN_CONVOLUTION, CUDNN_DATA_DOUBLE),
      CUDNN_STATUS_SUCCESS);
  int ph, pw, u, v, dh, dw;
  cudnnConvolutionMode_t mode;
  cudnnDataType_t compute;
  ASSERT_EQ(cudnnGetConvolution2dDescriptor(conv, &ph, &pw, &u, &v, &dh, &dw, &mode, &compute),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ((std::vector<int>{ph, pw, u, v, dh, dw}), (std::vector<int>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(mode, CUDNN_CONVOLUTION);
  EXPECT_EQ(compute, CUDNN_DATA_DOUBLE);

  const int pad[] = {0, 1, 2}, stride[] = {1, 2, 3}, dilation[] = {2, 1, 1};
  ASSERT_EQ(cudnnSetConvolutionNdDescriptor(conv, 3, pad, stride, dilation, CUDNN_CROSS_CORRELATION,
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_SUCCESS);
  int length = 0, got_pad[6], got_stride[6], got_dilation[6];
  ASSERT_EQ(cudnnGetConvolutionNdDescriptor(conv, 6, &length, got_pad, got_stride, got_dilation,
                                            &mode, &compute),
            CUDNN_STATUS_SUCCESS);
  ASSERT_EQ(length, 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(got_pad[i], pad[i]);
    EXPECT_EQ(got_stride[i], stride[i]);
    EXPECT_EQ(got_dilation[i], dilation[i]);
  }
  EXPECT_EQ(mode, CUDNN_CROSS_CORRELATION);
  // 3-d: the first two spatial dimensions, as cuDNN 9.19.
  EXPECT_EQ(cudnnGetConvolution2dDescriptor(conv, &ph, &pw, &u, &v, &dh, &dw, &mode, &compute),
            CUDNN_STATUS_SUCCESS);
  EXPECT_EQ((std::vector<int>{ph, pw, u, v, dh, dw}),
            (std::vector<int>{pad[0], pad[1], stride[0], stride[1], dilation[0], dilation[1]}));

  EXPECT_EQ(cudnnSetConvolutionGroupCount(conv, 4), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionGroupCount(conv, &groups), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(groups, 4);
  EXPECT_EQ(cudnnSetConvolutionGroupCount(conv, 0), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolutionMathType(conv, CUDNN_TENSOR_OP_MATH), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionMathType(conv, &math), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(math, CUDNN_TENSOR_OP_MATH);
  EXPECT_EQ(cudnnSetConvolutionReorderType(conv, CUDNN_NO_REORDER), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolutionReorderType(conv, &reorder), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(reorder, CUDNN_NO_REORDER);

  EXPECT_EQ(
      cudnnSetConvolution2dDescriptor(conv, -1, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
      CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(
      cudnnSetConvolution2dDescriptor(conv, 0, 0, 0, 1, 1, 1, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
      CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnSetConvolution2dDescriptor(nullptr, 0, 0, 1, 1, 1, 1, CUDNN_CONVOLUTION,
                                            CUDNN_DATA_FLOAT),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolutionGroupCount(nullptr, &groups), CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnDestroyConvolutionDescriptor(conv), CUDNN_STATUS_SUCCESS);
}

TEST(FakeCudnnDescriptors, ForwardOutputDimFollowsCudnnFormula) {
  ucudnn::testing::SeededRandom random;
  for (int trial = 0; trial < 50; ++trial) {
    const ConvolutionProblem p = testing::random_problem(random);
    testing::Descriptors d(p);
    int n, c, h, w;
    ASSERT_EQ(cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, &n, &c, &h, &w),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ((std::vector<std::int64_t>{n, c, h, w}), p.y.dims);
    int dims[4];
    ASSERT_EQ(cudnnGetConvolutionNdForwardOutputDim(d.conv, d.x, d.w, 4, dims),
              CUDNN_STATUS_SUCCESS);
    EXPECT_EQ((std::vector<std::int64_t>{dims[0], dims[1], dims[2], dims[3]}), p.y.dims);
    EXPECT_EQ(cudnnGetConvolutionNdForwardOutputDim(d.conv, d.x, d.w, 5, dims),
              CUDNN_STATUS_BAD_PARAM);
  }
}

TEST(FakeCudnnDescriptors, ForwardOutputDimRejectsChannelMismatch) {
  ConvolutionProblem p = make_conv2d_problem({2, 4, 8, 8, 6, 3, 3});
  testing::Descriptors d(p);
  int n, c, h, w;
  ASSERT_EQ(cudnnSetConvolutionGroupCount(d.conv, 2), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, &n, &c, &h, &w),
            CUDNN_STATUS_BAD_PARAM);
  EXPECT_EQ(cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, nullptr, &c, &h, &w),
            CUDNN_STATUS_BAD_PARAM);
}

}  // namespace
}  // namespace ucudnn::fakecuda
