#include "core/network.h"

#include "core/text.h"

#include <algorithm>
#include <cctype>

namespace ucudnn {

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

std::vector<NamedConvolution> alexnet_convolutions(std::int64_t batch) {
  return {
      {"conv1", make_conv2d_problem({batch, 3, 227, 227, 96, 11, 11, 0, 0, 4, 4})},
      {"conv2", make_conv2d_problem({batch, 96, 27, 27, 256, 5, 5, 2, 2, 1, 1, 1, 1, 2})},
      {"conv3", make_conv2d_problem({batch, 256, 13, 13, 384, 3, 3, 1, 1})},
      {"conv4", make_conv2d_problem({batch, 384, 13, 13, 384, 3, 3, 1, 1, 1, 1, 1, 1, 2})},
      {"conv5", make_conv2d_problem({batch, 384, 13, 13, 256, 3, 3, 1, 1, 1, 1, 1, 1, 2})},
  };
}
std::vector<std::string> builtin_network_names() {
  return {"alexnet", "resnet50"};
}

std::optional<std::vector<NamedConvolution>> builtin_network(std::string_view name,
                                                             std::int64_t batch) {
  if (equals_ignoring_case(name, "alexnet")) return alexnet_convolutions(batch);
  if (equals_ignoring_case(name, "resnet50") || equals_ignoring_case(name, "resnet-50"))
    return resnet50_convolutions(batch);
  return std::nullopt;
}

}  // namespace ucudnn
