#include "solvers/scaling_and_flip.h"

#include "geometry_nd.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// Logical dims of a problem tensor (two outer, three spatial) and its strides.
struct Shape {
  std::int64_t outer[2];
  const Extent3* spatial;
  const std::int64_t* strides;
};

Shape shape_of(const GeometryNd& g, Role role) {
  switch (role) {
    case kX:
      return {{g.n, g.c}, &g.in, g.xs};
    case kW:
      return {{g.k, g.cg}, &g.filter, g.ws};
    default:
      return {{g.n, g.k}, &g.out, g.ys};
  }
}

// Offset of spatial position (i0, i1, i2), reversed in every dimension with flip.
std::int64_t spatial_at(const Shape& s, std::int64_t i0, std::int64_t i1, std::int64_t i2,
                        bool flip) {
  const Extent3& e = *s.spatial;
  if (flip) i0 = e[0] - 1 - i0, i1 = e[1] - 1 - i1, i2 = e[2] - 1 - i2;
  return i0 * s.strides[2] + i1 * s.strides[3] + i2 * s.strides[4];
}

}  // namespace

void combine(const GeometryNd& g, Role role, const float* result, float* out, Scaling scaling,
             bool flip, ThreadPool& pool) {
  const Shape s = shape_of(g, role);
  const Extent3& e = *s.spatial;
  const float alpha = static_cast<float>(scaling.alpha), beta = static_cast<float>(scaling.beta);
  const bool accumulate = scaling.beta != 0;
  pool.parallel_for(static_cast<std::size_t>(s.outer[0] * s.outer[1]), [&](std::size_t begin,
                                                                           std::size_t end,
                                                                           unsigned) {
    for (auto ab = static_cast<std::int64_t>(begin); ab < static_cast<std::int64_t>(end); ++ab) {
      const std::int64_t base = ab / s.outer[1] * s.strides[0] + ab % s.outer[1] * s.strides[1];
      for (std::int64_t i0 = 0; i0 < e[0]; ++i0)
        for (std::int64_t i1 = 0; i1 < e[1]; ++i1)
          for (std::int64_t i2 = 0; i2 < e[2]; ++i2) {
            const std::int64_t at = base + spatial_at(s, i0, i1, i2, false);
            const float value = alpha * result[base + spatial_at(s, i0, i1, i2, flip)];
            out[at] = accumulate ? value + beta * out[at] : value;
          }
    }
  });
}

void flip_filter(const GeometryNd& g, const float* w, float* flipped) {
  const Shape s = shape_of(g, kW);
  const Extent3& e = *s.spatial;
  for (std::int64_t k = 0; k < g.k; ++k)
    for (std::int64_t c = 0; c < g.cg; ++c) {
      const std::int64_t base = k * g.ws[0] + c * g.ws[1];
      for (std::int64_t i0 = 0; i0 < e[0]; ++i0)
        for (std::int64_t i1 = 0; i1 < e[1]; ++i1)
          for (std::int64_t i2 = 0; i2 < e[2]; ++i2)
            flipped[base + spatial_at(s, i0, i1, i2, false)] =
                w[base + spatial_at(s, i0, i1, i2, true)];
    }
}

}  // namespace ucudnn::cpu
