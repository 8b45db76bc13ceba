// cpu_backend's 16-bit storage conversions (reduced_precision.h), which the doubles store half
// and bfloat16 results with, against CUDA's own host conversions (cuda_fp16.h, cuda_bf16.h):
// every 16-bit pattern read back, and random and chosen floats (ties, the edges of the ranges,
// subnormals, infinities, NaN) rounded.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "reduced_precision.h"
#include "support/random_seed.h"

namespace ucudnn::cpu {
namespace {

std::uint16_t bits_of(__half value) {
  return static_cast<__half_raw>(value).x;
}

std::uint16_t bits_of(__nv_bfloat16 value) {
  return static_cast<__nv_bfloat16_raw>(value).x;
}

__half half_of(std::uint16_t bits) {
  __half_raw raw;
  raw.x = bits;
  return __half(raw);
}

__nv_bfloat16 bfloat16_of(std::uint16_t bits) {
  __nv_bfloat16_raw raw;
  raw.x = bits;
  return __nv_bfloat16(raw);
}

// Same value, NaN matching NaN (payloads may differ).
bool same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

TEST(ReducedPrecision, EveryPatternReadsAsCudaReadsIt) {
  for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    ASSERT_TRUE(same(to_float(Half{b}), __half2float(half_of(b)))) << std::hex << bits;
    ASSERT_TRUE(same(to_float(BFloat16{b}), __bfloat162float(bfloat16_of(b)))) << std::hex << bits;
  }
}

void expect_rounds_as_cuda(float value) {
  const Half half = to_half(value);
  const BFloat16 bfloat = to_bfloat16(value);
  if (std::isnan(value)) {
    EXPECT_TRUE(std::isnan(to_float(half))) << value;
    EXPECT_TRUE(std::isnan(to_float(bfloat))) << value;
    return;
  }
  EXPECT_EQ(half.bits, bits_of(__float2half_rn(value))) << std::hexfloat << value;
  EXPECT_EQ(bfloat.bits, bits_of(__float2bfloat16_rn(value))) << std::hexfloat << value;
}

TEST(ReducedPrecision, ChosenFloatsRoundAsCudaRoundsThem) {
  const float chosen[] = {
      0.0f, -0.0f, 1.0f, -1.0f, 257.0f, 259.0f, 2049.0f, 2051.0f,
      // half's largest, the ties around it, and what rounds to infinity
      65504.0f, 65519.0f, 65520.0f, 65536.0f, 1e10f,
      // half's smallest normal and subnormals, with ties between them
      0x1p-14f, 0x1.ffcp-15f, 0x1p-24f, 0x1p-25f, 0x1.8p-24f, 0x1p-26f,
      // bfloat16 ties to even, up and down, and a carry into the exponent
      0x1.01p0f, 0x1.03p0f, 0x1.ffp0f, 0x1.ff8p0f, std::numeric_limits<float>::max(),
      std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
      std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
      std::numeric_limits<float>::quiet_NaN()};
  for (float value : chosen) {
    expect_rounds_as_cuda(value);
    expect_rounds_as_cuda(-value);
  }
}

TEST(ReducedPrecision, RandomFloatsRoundAsCudaRoundsThem) {
  ucudnn::testing::SeededRandom random;
  for (int i = 0; i < 200000; ++i) {
    // Any bit pattern: every exponent, subnormals, infinities and NaNs included.
    const auto bits = static_cast<std::uint32_t>(random.uniform(0, 0xFFFFFFFFu));
    float value;
    std::memcpy(&value, &bits, sizeof value);
    expect_rounds_as_cuda(value);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace ucudnn::cpu
