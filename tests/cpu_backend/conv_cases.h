#pragma once
// Convolution shapes the CPU tests sweep: the list (1x1, 3x3, 5x5, 7x7 stride 2,
// 11x11 stride 4, dilation 2, groups 2, depthwise, H != W, odd sizes, padding), with the
// batch and channel counts drawn at random each run.
#include <string>
#include <vector>

#include "core/convolution_problem.h"
#include "support/random_seed.h"

namespace ucudnn::testing {

struct ConvCase {
  std::string name;
  Conv2dShape shape;
};

inline std::vector<ConvCase> conv_cases(SeededRandom& random) {
  auto n = [&] { return random.uniform(1, 4); };
  auto ch = [&](std::int64_t lo, std::int64_t hi) { return random.uniform(lo, hi); };
  const std::int64_t c2 = 2 * ch(1, 4), k2 = 2 * ch(1, 4), dw = ch(2, 6);
  return {
      {"1x1", {n(), ch(1, 9), 7, 9, ch(1, 9), 1, 1}},
      {"3x3_pad1", {n(), ch(1, 8), 10, 10, ch(1, 8), 3, 3, 1, 1}},
      {"3x3_pad0_odd", {n(), ch(1, 8), 9, 7, ch(1, 8), 3, 3}},
      {"5x5_pad2", {n(), ch(1, 6), 11, 12, ch(1, 6), 5, 5, 2, 2}},
      {"7x7_stride2", {n(), 3, 17, 15, ch(1, 8), 7, 7, 3, 3, 2, 2}},
      {"11x11_stride4", {n(), 3, 31, 27, ch(1, 8), 11, 11, 2, 1, 4, 4}},
      {"3x3_dilation2", {n(), ch(1, 6), 12, 11, ch(1, 6), 3, 3, 2, 2, 1, 1, 2, 2}},
      {"3x3_groups2", {n(), c2, 9, 8, k2, 3, 3, 1, 1, 1, 1, 1, 1, 2}},
      {"3x3_depthwise", {n(), dw, 8, 9, dw, 3, 3, 1, 1, 1, 1, 1, 1, dw}},
      {"3x5_stride2x1", {n(), ch(1, 6), 13, 10, ch(1, 6), 3, 5, 1, 0, 2, 1}},
  };
}

}  // namespace ucudnn::testing
