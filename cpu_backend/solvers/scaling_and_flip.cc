#include "solvers/scaling_and_flip.h"

#include "geometry.h"
#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// Logical 4-d dims of a problem tensor, and its strides.
void shape_of(const Geometry& g, Role role, std::int64_t dims[4], const std::int64_t** strides) {
  switch (role) {
    case kX:
      dims[0] = g.n, dims[1] = g.c, dims[2] = g.h, dims[3] = g.w, *strides = g.xs;
      break;
    case kW:
      dims[0] = g.k, dims[1] = g.cg, dims[2] = g.r, dims[3] = g.s, *strides = g.ws;
      break;
    case kY:
      dims[0] = g.n, dims[1] = g.k, dims[2] = g.p, dims[3] = g.q, *strides = g.ys;
      break;
  }
}

}  // namespace

void combine(const Geometry& g, Role role, const float* result, float* out, Scaling scaling,
             bool flip, ThreadPool& pool) {
  std::int64_t dims[4];
  const std::int64_t* st;
  shape_of(g, role, dims, &st);
  const float alpha = static_cast<float>(scaling.alpha), beta = static_cast<float>(scaling.beta);
  const bool accumulate = scaling.beta != 0;
  pool.parallel_for(static_cast<std::size_t>(dims[0] * dims[1]), [&](std::size_t begin,
                                                                     std::size_t end, unsigned) {
    for (auto ab = static_cast<std::int64_t>(begin); ab < static_cast<std::int64_t>(end); ++ab) {
      const std::int64_t a = ab / dims[1], b = ab % dims[1];
      for (std::int64_t c = 0; c < dims[2]; ++c)
        for (std::int64_t d = 0; d < dims[3]; ++d) {
          const std::int64_t at = a * st[0] + b * st[1] + c * st[2] + d * st[3];
          const std::int64_t from =
              flip ? a * st[0] + b * st[1] + (dims[2] - 1 - c) * st[2] + (dims[3] - 1 - d) * st[3]
                   : at;
          const float value = alpha * result[from];
          out[at] = accumulate ? value + beta * out[at] : value;
        }
    }
  });
}

void flip_filter(const Geometry& g, const float* w, float* flipped) {
  for (std::int64_t k = 0; k < g.k; ++k)
    for (std::int64_t c = 0; c < g.cg; ++c)
      for (std::int64_t r = 0; r < g.r; ++r)
        for (std::int64_t s = 0; s < g.s; ++s)
          flipped[k * g.ws[0] + c * g.ws[1] + r * g.ws[2] + s * g.ws[3]] =
              w[k * g.ws[0] + c * g.ws[1] + (g.r - 1 - r) * g.ws[2] + (g.s - 1 - s) * g.ws[3]];
}

}  // namespace ucudnn::cpu
