#pragma once
// Half (IEEE binary16) and bfloat16 as storage types: 16 bits read as float and written from
// float with round-to-nearest-even, as a GPU stores them. Only the reference convolution (and
// through it the cuDNN test doubles) uses them; arithmetic is done in float or wider.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace ucudnn::cpu {

struct BFloat16 {
  std::uint16_t bits = 0;
};

struct Half {
  std::uint16_t bits = 0;
};

inline float to_float(BFloat16 value) {
  const std::uint32_t bits = static_cast<std::uint32_t>(value.bits) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline BFloat16 to_bfloat16(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (std::isnan(value)) return {static_cast<std::uint16_t>((bits >> 16) | 0x40)};  // stays NaN
  // Adding 0x7FFF plus the kept part's lowest bit rounds half to even; a carry into the
  // exponent is the correct rounding up (to infinity at the top of the range).
  bits += 0x7FFF + ((bits >> 16) & 1);
  return {static_cast<std::uint16_t>(bits >> 16)};
}

// A half value as float (exact: every half value is a float value).
inline float decode_half(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1F;
  const std::uint32_t mantissa = bits & 0x3FF;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24, exact in float
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign ? -magnitude : magnitude;
  }
  const std::uint32_t word = exponent == 0x1F ? sign | 0x7F800000u | (mantissa << 13)
                                              : sign | ((exponent + 112) << 23) | (mantissa << 13);
  float f;
  std::memcpy(&f, &word, sizeof f);
  return f;
}

// Through every half value decoded once (256 KiB): the reference reads two operands per product.
inline float to_float(Half value) {
  static const std::vector<float> decoded = [] {
    std::vector<float> all(1 << 16);
    for (std::uint32_t bits = 0; bits < all.size(); ++bits)
      all[bits] = decode_half(static_cast<std::uint16_t>(bits));
    return all;
  }();
  return decoded[value.bits];
}

inline Half to_half(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
  if (std::isnan(value)) return {static_cast<std::uint16_t>(sign | 0x7E00)};
  const float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f) return {static_cast<std::uint16_t>(sign | 0x7C00)};  // rounds to inf
  if (magnitude < 0x1p-14f) {
    // Subnormal (or zero): a multiple of 2^-24, rounded to nearest even by nearbyint under the
    // default rounding mode.
    const auto units = static_cast<std::uint16_t>(std::nearbyint(std::ldexp(magnitude, 24)));
    return {static_cast<std::uint16_t>(sign | units)};
  }
  // Normal: keep 10 of float's 23 mantissa bits, rounding half to even; a carry moves into the
  // exponent, which is the correct result (65504 is the largest, checked above).
  std::uint32_t rest = (bits & 0x7FFFFFFFu) - (112u << 23);
  rest += 0xFFF + ((rest >> 13) & 1);
  return {static_cast<std::uint16_t>(sign | (rest >> 13))};
}

}  // namespace ucudnn::cpu
