#include "resnet50.h"

namespace ucudnn::bench {

std::vector<NamedConvolution> resnet50_convolutions(std::int64_t batch) {
  std::vector<NamedConvolution> layers;
  auto add = [&](std::string name, std::int64_t in, std::int64_t size, std::int64_t out,
                 std::int64_t kernel, std::int64_t stride) {
    const std::int64_t pad = kernel / 2;
    layers.push_back({std::move(name), make_conv2d_problem({batch, in, size, size, out, kernel,
                                                            kernel, pad, pad, stride, stride})});
  };
  add("conv1", 3, 224, 64, 7, 2);
  struct Stage {
    int blocks;
    std::int64_t mid, out, stride;
  };
  const Stage stages[] = {{3, 64, 256, 1}, {4, 128, 512, 2}, {6, 256, 1024, 2}, {3, 512, 2048, 2}};
  std::int64_t channels = 64, size = 56;
  for (int s = 0; s < 4; ++s) {
    for (int b = 0; b < stages[s].blocks; ++b) {
      const auto prefix = "res" + std::to_string(s + 2) + static_cast<char>('a' + b);
      const std::int64_t stride = b == 0 ? stages[s].stride : 1;
      const std::int64_t out_size = size / stride;
      add(prefix + "_branch2a", channels, size, stages[s].mid, 1, 1);
      add(prefix + "_branch2b", stages[s].mid, size, stages[s].mid, 3, stride);
      add(prefix + "_branch2c", stages[s].mid, out_size, stages[s].out, 1, 1);
      if (b == 0) add(prefix + "_branch1", channels, size, stages[s].out, 1, stride);
      channels = stages[s].out;
      size = out_size;
    }
  }
  return layers;
}

}  // namespace ucudnn::bench
