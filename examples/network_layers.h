#pragma once
// The convolution layers the example programs drive, in one table so that the programs and
// the tests that predict their behaviour agree on every shape. Small on purpose: the test
// doubles compute every convolution exactly on the CPU.
namespace ucudnn::examples {

struct Layer {
  const char* name;
  int in_channels, height, width, out_channels, filter_h, filter_w;
  int pad, stride, dilation, groups;
  bool channels_last;     // NHWC x, y and filter
  bool convolution_mode;  // CUDNN_CONVOLUTION instead of CUDNN_CROSS_CORRELATION
  float forward_alpha, forward_beta;
};

inline constexpr Layer kLayers[] = {
    {"conv1", 3, 16, 16, 16, 5, 5, 2, 2, 1, 1, false, false, 1.0f, 0.0f},
    {"conv2", 16, 12, 12, 32, 3, 3, 1, 1, 1, 2, false, false, 1.0f, 0.0f},
    {"conv3", 16, 12, 12, 16, 3, 3, 2, 1, 2, 1, true, false, 1.0f, 0.0f},
    {"conv4", 32, 10, 10, 32, 3, 3, 1, 1, 1, 1, false, false, 0.5f, 0.25f},
    {"conv5", 32, 8, 8, 64, 1, 1, 0, 1, 1, 1, false, true, 1.0f, 0.0f},
};

}  // namespace ucudnn::examples
