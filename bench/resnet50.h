#pragma once
// ResNet-50 (v1.5: stride on the 3x3 convolution) as a list of named 2-d convolutions.
#include <string>
#include <vector>

#include "core/convolution_problem.h"

namespace ucudnn::bench {

struct NamedConvolution {
  std::string name;
  ConvolutionProblem problem;
};

std::vector<NamedConvolution> resnet50_convolutions(std::int64_t batch);

}  // namespace ucudnn::bench
