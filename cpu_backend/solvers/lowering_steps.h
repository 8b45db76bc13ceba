#pragma once
// The steps the lowering solvers share around their GEMMs: moving one image-group block
// between the strided tensors and dense matrices, with cuDNN's alpha/beta.
#include "geometry.h"
#include "solver.h"

namespace ucudnn::cpu {

// Lowering solvers need x and y images packed CHW and the filter packed KCRS, float.
bool lowering_applies(const KernelKey& kernel);

// y[n, group*kg + k, :] = alpha * dense[k][:] + beta * y[...]; dense is kg x (p*q), row stride ld.
void store_output_block(const Geometry& g, const float* dense, std::int64_t ld,
                        float* y_image_group, Scaling scaling);

// dense[k][:] = dy[n, group*kg + k, :]; row stride ld.
void load_output_block(const Geometry& g, const float* dy_image_group, float* dense,
                       std::int64_t ld);

// x[n, group*cg .. group*cg+cg, :, :] *= beta (set to 0 when beta == 0, never read then).
void scale_input_block(const Geometry& g, float* x_image_group, double beta);

}  // namespace ucudnn::cpu
