#pragma once
// Batch and channel counts of a convolution, whole and per group: what the 2-d and the
// N-dimensional geometries (geometry.h, geometry_nd.h) read alike from a problem.
#include <cstdint>

#include "core/convolution_problem.h"

namespace ucudnn::cpu {

struct ChannelCounts {
  std::int64_t n, c, k;         // batch, input channels, output channels
  std::int64_t groups, cg, kg;  // per group: input and output channels

  explicit ChannelCounts(const ConvolutionProblem& problem)
      : n(problem.x.dims[0]),
        c(problem.x.dims[1]),
        k(problem.w.dims[0]),
        groups(problem.groups),
        cg(problem.x.dims[1] / problem.groups),
        kg(problem.w.dims[0] / problem.groups) {}
};

}  // namespace ucudnn::cpu
