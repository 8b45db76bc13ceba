// The cuDNN double's half and bfloat16 convolutions: the configurations cuDNN accepts, and
// results summed in float and rounded once to the 16-bit type, checked on hand-made cases
// (convolution_test.cc compares random 16-bit problems with the reference).
#include <cudnn.h>
#include <gtest/gtest.h>

#include <cstdint>

#include "reduced_precision.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::Descriptors;
using testing::DeviceBuffer;
using testing::Handle;

// 16-bit data is summed in float and rounded once, to nearest even, as a GPU kernel stores it:
// 256 + 1 + 1 is 258 in bfloat16 (rounding after each addition would give 256), 256 + 1 ties
// down to 256 and 256 + 3 up to 260; half, 4 times finer, at 2048.
TEST(FakeCudnnConvolution, SixteenBitResultsAreRoundedOnceToNearestEven) {
  struct Case {
    DataType type;
    float x[3], expected;
  };
  const Case cases[] = {
      {DataType::kBFloat16, {256, 1, 1}, 258}, {DataType::kBFloat16, {256, 1, 0}, 256},
      {DataType::kBFloat16, {256, 3, 0}, 260}, {DataType::kHalf, {2048, 1, 1}, 2050},
      {DataType::kHalf, {2048, 1, 0}, 2048},   {DataType::kHalf, {2048, 3, 0}, 2052}};
  Handle handle;
  for (const Case& c : cases) {
    ConvolutionProblem p = make_conv2d_problem({1, 1, 1, 3, 1, 1, 3}, c.type);
    p.compute_type = DataType::kFloat;
    Descriptors d(p);
    const auto store = [&](float value) {
      return c.type == DataType::kHalf ? cpu::to_half(value).bits : cpu::to_bfloat16(value).bits;
    };
    const std::uint16_t x[3] = {store(c.x[0]), store(c.x[1]), store(c.x[2])},
                        w[3] = {store(1), store(1), store(1)};
    DeviceBuffer dx(sizeof x), dw(sizeof w), dy(2);
    ASSERT_EQ(cudaMemcpy(dx.get(), x, sizeof x, cudaMemcpyHostToDevice), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(dw.get(), w, sizeof w, cudaMemcpyHostToDevice), cudaSuccess);
    const float alpha = 1, beta = 0;
    ASSERT_EQ(cudnnConvolutionForward(handle, &alpha, d.x, dx.get(), d.w, dw.get(), d.conv,
                                      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &beta,
                                      d.y, dy.get()),
              CUDNN_STATUS_SUCCESS);
    std::uint16_t y = 0;
    ASSERT_EQ(cudaMemcpy(&y, dy.get(), sizeof y, cudaMemcpyDeviceToHost), cudaSuccess);
    const float got =
        c.type == DataType::kHalf ? cpu::to_float(cpu::Half{y}) : cpu::to_float(cpu::BFloat16{y});
    EXPECT_EQ(got, c.expected) << name_of(c.type) << " " << c.x[0] << " + " << c.x[1] << " + "
                               << c.x[2];
  }
}

// bfloat16 computes in float only; half in half or float. (A bfloat16 compute type is refused
// earlier, by cudnnSetConvolution*Descriptor, as cuDNN 9.19 refuses it.)
TEST(FakeCudnnConvolution, SixteenBitComputeTypesAreCudnns) {
  Handle handle;
  struct Case {
    DataType data, compute;
    cudnnStatus_t status;
  };
  const Case cases[] = {{DataType::kHalf, DataType::kHalf, CUDNN_STATUS_SUCCESS},
                        {DataType::kHalf, DataType::kFloat, CUDNN_STATUS_SUCCESS},
                        {DataType::kBFloat16, DataType::kFloat, CUDNN_STATUS_SUCCESS},
                        {DataType::kBFloat16, DataType::kHalf, CUDNN_STATUS_NOT_SUPPORTED},
                        {DataType::kHalf, DataType::kDouble, CUDNN_STATUS_NOT_SUPPORTED}};
  for (const Case& c : cases) {
    ConvolutionProblem p = make_conv2d_problem({1, 1, 1, 3, 1, 1, 3}, c.data);
    p.compute_type = c.compute;
    Descriptors d(p);
    DeviceBuffer dx(6), dw(6), dy(2);
    const float alpha = 1, beta = 0;
    EXPECT_EQ(cudnnConvolutionForward(handle, &alpha, d.x, dx.get(), d.w, dw.get(), d.conv,
                                      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &beta,
                                      d.y, dy.get()),
              c.status)
        << name_of(c.data) << " computed in " << name_of(c.compute);
  }
}

}  // namespace
}  // namespace ucudnn::fakecuda
