#pragma once
// A network as the planner sees it: named convolution layers, each giving three kernels
// (Forward, BackwardData, BackwardFilter). Built-in networks for demos and benchmarks.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/convolution_problem.h"

namespace ucudnn {

struct NamedConvolution {
  std::string name;
  ConvolutionProblem problem;
};

// ResNet-50 v1.5 (stride on the 3x3 convolution): 53 convolutions.
std::vector<NamedConvolution> resnet50_convolutions(std::int64_t batch);

// AlexNet as CaffeNet has it (227x227 input; conv2, conv4, conv5 in 2 groups).
std::vector<NamedConvolution> alexnet_convolutions(std::int64_t batch);

// "alexnet", "resnet50" (case-insensitive); nullopt for an unknown name.
std::optional<std::vector<NamedConvolution>> builtin_network(std::string_view name,
                                                             std::int64_t batch);
std::vector<std::string> builtin_network_names();

}  // namespace ucudnn
