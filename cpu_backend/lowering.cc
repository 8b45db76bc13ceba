#include "lowering.h"

#include <algorithm>

#include "thread_pool.h"

namespace ucudnn::cpu {

namespace {

// The stored filter row (c, fr, fs) holds the cross-correlation tap (tr, ts).
template <typename Visit>
void for_each_row(const Geometry& g, std::int64_t channel_begin, std::int64_t channel_end,
                  Visit visit) {
  if (channel_end < 0) channel_end = g.cg;
  for (std::int64_t c = channel_begin; c < channel_end; ++c)
    for (std::int64_t fr = 0; fr < g.r; ++fr)
      for (std::int64_t fs = 0; fs < g.s; ++fs) {
        const std::int64_t tr = g.flip ? g.r - 1 - fr : fr, ts = g.flip ? g.s - 1 - fs : fs;
        visit((c * g.r + fr) * g.s + fs, c, tr, ts);
      }
}

}  // namespace

void im2col(const Geometry& g, const float* image, float* col, std::int64_t ld,
            std::int64_t channel_begin, std::int64_t channel_end) {
  for_each_row(g, channel_begin, channel_end,
               [&](std::int64_t row, std::int64_t c, std::int64_t tr, std::int64_t ts) {
                 const float* channel = image + c * g.h * g.w;
                 float* out = col + row * ld;
                 const std::int64_t col_offset = ts * g.dilation_w - g.pad_w;
                 const auto [qb, qe] = valid_columns(col_offset, g.stride_w, g.w, g.q);
                 for (std::int64_t p = 0; p < g.p; ++p, out += g.q) {
                   const std::int64_t ih = p * g.stride_h - g.pad_h + tr * g.dilation_h;
                   if (ih < 0 || ih >= g.h) {
                     std::fill(out, out + g.q, 0.0f);
                     continue;
                   }
                   const float* in = channel + ih * g.w + col_offset;
                   std::fill(out, out + qb, 0.0f);
                   if (g.stride_w == 1) {
                     std::copy(in + qb, in + qe, out + qb);
                   } else {
                     for (std::int64_t q = qb; q < qe; ++q) out[q] = in[q * g.stride_w];
                   }
                   std::fill(out + qe, out + g.q, 0.0f);
                 }
               });
}

void col2im(const Geometry& g, const float* col, std::int64_t ld, float* image,
            std::int64_t channel_begin, std::int64_t channel_end) {
  for_each_row(g, channel_begin, channel_end,
               [&](std::int64_t row, std::int64_t c, std::int64_t tr, std::int64_t ts) {
                 float* channel = image + c * g.h * g.w;
                 const float* in = col + row * ld;
                 const std::int64_t col_offset = ts * g.dilation_w - g.pad_w;
                 const auto [qb, qe] = valid_columns(col_offset, g.stride_w, g.w, g.q);
                 for (std::int64_t p = 0; p < g.p; ++p, in += g.q) {
                   const std::int64_t ih = p * g.stride_h - g.pad_h + tr * g.dilation_h;
                   if (ih < 0 || ih >= g.h) continue;
                   float* out = channel + ih * g.w + col_offset;
                   if (g.stride_w == 1) {
                     for (std::int64_t q = qb; q < qe; ++q) out[q] += in[q];
                   } else {
                     for (std::int64_t q = qb; q < qe; ++q) out[q * g.stride_w] += in[q];
                   }
                 }
               });
}

void parallel_im2col(ThreadPool& pool, const Geometry& g, const float* image, float* col,
                     std::int64_t ld) {
  pool.parallel_for(
      static_cast<std::size_t>(g.cg), [&](std::size_t begin, std::size_t end, unsigned) {
        im2col(g, image, col, ld, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end));
      });
}

void parallel_col2im(ThreadPool& pool, const Geometry& g, const float* col, std::int64_t ld,
                     float* image) {
  pool.parallel_for(
      static_cast<std::size_t>(g.cg), [&](std::size_t begin, std::size_t end, unsigned) {
        col2im(g, col, ld, image, static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end));
      });
}

}  // namespace ucudnn::cpu
