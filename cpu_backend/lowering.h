#pragma once
// im2col and col2im for one image and one group (Caffe's lowering). The lowered matrix has
// one row per stored filter element (c, r, s) of the group and one column per output
// position (p, q); `ld` is its row stride, so several images can sit side by side (CcT's
// batched lowering). Requires x images packed CHW (Geometry::x_images_packed).
#include <cstdint>

#include "geometry.h"

namespace ucudnn::cpu {

// Rows of the lowered matrix: cg * r * s; columns per image: p * q.
inline std::int64_t lowered_rows(const Geometry& g) {
  return g.cg * g.r * g.s;
}
inline std::int64_t lowered_columns(const Geometry& g) {
  return g.p * g.q;
}

// col[row][column] = x value under filter element `row` at output position `column`, 0 in
// the padding. `image` points at x[n, group * cg, 0, 0].
void im2col(const Geometry& g, const float* image, float* col, std::int64_t ld,
            std::int64_t channel_begin = 0, std::int64_t channel_end = -1);

// The adjoint: image[...] += col[row][column] for every tap. `image` points at
// dx[n, group * cg, 0, 0], which the caller has initialized (scaled by beta, or zeroed).
void col2im(const Geometry& g, const float* col, std::int64_t ld, float* image,
            std::int64_t channel_begin = 0, std::int64_t channel_end = -1);

class ThreadPool;

// The same, with the group's channels split across the pool (rows are disjoint per
// channel, so the threads never write the same element).
void parallel_im2col(ThreadPool& pool, const Geometry& g, const float* image, float* col,
                     std::int64_t ld);
void parallel_col2im(ThreadPool& pool, const Geometry& g, const float* col, std::int64_t ld,
                     float* image);

}  // namespace ucudnn::cpu
