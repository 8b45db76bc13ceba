#include "geometry_nd.h"

namespace ucudnn::cpu {

GeometryNd::GeometryNd(const ConvolutionProblem& problem)
    : ChannelCounts(problem),
      rank(problem.spatial_rank()),
      in{1, 1, 1},
      filter{1, 1, 1},
      out{1, 1, 1},
      pad{0, 0, 0},
      stride{1, 1, 1},
      dilation{1, 1, 1},
      flip(problem.mode == ConvolutionMode::kConvolution),
      xs{problem.x.strides[0], problem.x.strides[1], 0, 0, 0},
      ws{problem.w.strides[0], problem.w.strides[1], 0, 0, 0},
      ys{problem.y.strides[0], problem.y.strides[1], 0, 0, 0} {
  for (int d = 0; d < rank; ++d) {
    const int at = 3 - rank + d;  // the last `rank` places
    const auto i = static_cast<std::size_t>(d);
    in[at] = problem.x.dims[2 + i];
    filter[at] = problem.w.dims[2 + i];
    out[at] = problem.y.dims[2 + i];
    pad[at] = problem.padding[i];
    stride[at] = problem.stride[i];
    dilation[at] = problem.dilation[i];
    xs[2 + at] = problem.x.strides[2 + i];
    ws[2 + at] = problem.w.strides[2 + i];
    ys[2 + at] = problem.y.strides[2 + i];
  }
}

namespace {
// Packed from the innermost dimension outwards: channel stride = spatial volume, and so on.
bool packed(const std::int64_t* strides, const Extent3& e, int rank) {
  std::int64_t expected = 1;
  for (int d = 2; d >= 3 - rank; --d) {
    if (strides[2 + d] != expected) return false;
    expected *= e[d];
  }
  return strides[1] == expected;
}
}  // namespace

bool GeometryNd::x_images_packed() const {
  return packed(xs, in, rank);
}
bool GeometryNd::y_images_packed() const {
  return packed(ys, out, rank);
}
bool GeometryNd::w_packed() const {
  return packed(ws, filter, rank) && ws[0] == cg * volume(filter);
}

bool is_cpu_nd_problem(const ConvolutionProblem& problem) {
  const int rank = problem.spatial_rank();
  return rank >= 1 && rank <= GeometryNd::kMaxRank && !problem.validation_error() &&
         (problem.data_type == DataType::kFloat || problem.data_type == DataType::kDouble);
}

}  // namespace ucudnn::cpu
