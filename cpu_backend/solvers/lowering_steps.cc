#include "solvers/lowering_steps.h"

#include <algorithm>

namespace ucudnn::cpu {

bool lowering_applies(const KernelKey& kernel) {
  if (!is_cpu_2d_problem(kernel.problem) || kernel.problem.data_type != DataType::kFloat)
    return false;
  const Geometry g(kernel.problem);
  return g.x_images_packed() && g.y_images_packed() && g.w_packed();
}

void store_output_block(const Geometry& g, const float* dense, std::int64_t ld, float* y,
                        Scaling scaling) {
  const auto alpha = static_cast<float>(scaling.alpha), beta = static_cast<float>(scaling.beta);
  const std::int64_t pq = g.p * g.q;
  for (std::int64_t k = 0; k < g.kg; ++k) {
    const float* in = dense + k * ld;
    float* out = y + k * pq;
    if (scaling.beta == 0) {
      for (std::int64_t i = 0; i < pq; ++i) out[i] = alpha * in[i];
    } else {
      for (std::int64_t i = 0; i < pq; ++i) out[i] = alpha * in[i] + beta * out[i];
    }
  }
}

void load_output_block(const Geometry& g, const float* dy, float* dense, std::int64_t ld) {
  const std::int64_t pq = g.p * g.q;
  for (std::int64_t k = 0; k < g.kg; ++k) std::copy(dy + k * pq, dy + (k + 1) * pq, dense + k * ld);
}

void scale_input_block(const Geometry& g, float* x, double beta) {
  const std::int64_t count = g.cg * g.h * g.w;
  if (beta == 0) {
    std::fill(x, x + count, 0.0f);
  } else if (beta != 1) {
    const auto b = static_cast<float>(beta);
    for (std::int64_t i = 0; i < count; ++i) x[i] *= b;
  }
}

}  // namespace ucudnn::cpu
