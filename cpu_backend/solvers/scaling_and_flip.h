#pragma once
// What the oneDNN solvers do by hand around oneDNN's convolution: cuDNN's alpha/beta scaling
// (oneDNN's convolutions only overwrite) and true convolution's filter flip (oneDNN only
// cross-correlates), in the problem's own strided layouts, in 1 to 3 spatial dimensions.
#include <cstdint>

#include "solver.h"

namespace ucudnn::cpu {

struct GeometryNd;
class ThreadPool;

// A problem tensor's part: x (input or dx), w (filter or dw), y (output or dy).
enum Role { kX, kW, kY };

// out = alpha * result + beta * out, both in the problem's layout; with flip, result holds
// the cross-correlation filter gradient, stored back at the flipped positions.
void combine(const GeometryNd& g, Role role, const float* result, float* out, Scaling scaling,
             bool flip, ThreadPool& pool);

// The filter with each spatial window reversed in every dimension, in the filter's layout.
void flip_filter(const GeometryNd& g, const float* w, float* flipped);

}  // namespace ucudnn::cpu
