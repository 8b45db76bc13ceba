// The work layout, chunking and threading of the Winograd solvers (see winograd_loops.h);
// the per-element arithmetic is in the micro-kernels of kernels/.
#include "solvers/winograd_loops.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <tuple>
#include <utility>

#include "gemm.h"
#include "kernels/winograd_vector.h"

namespace ucudnn::cpu::winograd {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
std::int64_t round_up(std::int64_t a, std::int64_t b) {
  return ceil_div(a, b) * b;
}

// Workspace layout, in floats: U[position][k][cg] (k over all groups), V[position][tile]
// [c_pad] and M[position][tile][k_pad], the channels of all groups rounded up to whole
// blocks. Each position's matrix starts 64 bytes past a whole number of blocks, so that
// every vector of U, V and M is 64-byte aligned when the workspace is, and the kA * kA
// positions of one tile, read or written together, do not all fall in the same cache set
// (as they would for power-of-two matrices, common here). Tiles are (image, tile row, tile
// column); the transforms take them in chunks of up to kChunkColumns / m tiles of one row.
struct Layout {
  std::int64_t positions, tile_rows, tile_cols, tiles, chunks_per_row, chunk_tiles, chunks;
  std::int64_t c_pad, k_pad, u_position, v_position, m_position;

  Layout(const Conv& cv, int m) {
    positions = (m + 2) * (m + 2);
    tile_rows = ceil_div(cv.p, m);
    tile_cols = ceil_div(cv.q, m);
    tiles = cv.n * tile_rows * tile_cols;
    chunks_per_row = ceil_div(tile_cols, kChunkColumns / m);
    chunk_tiles = ceil_div(tile_cols, chunks_per_row);
    chunks = cv.n * tile_rows * chunks_per_row;
    c_pad = round_up(cv.groups * cv.cg, kLanes);
    k_pad = round_up(cv.groups * cv.kg, kLanes);
    u_position = round_up(cv.groups * cv.kg * cv.cg, kLanes) + kLanes;
    v_position = tiles * c_pad + kLanes;
    m_position = tiles * k_pad + kLanes;
  }
  std::size_t bytes() const {
    return static_cast<std::size_t>(positions * (u_position + v_position + m_position)) *
           sizeof(float);
  }
};

// The tiles of chunk `index`: image, tile row, first tile column and count, first tile.
struct Chunk {
  std::int64_t image, row, col, tiles, first_tile;
  Chunk(const Layout& layout, std::int64_t index) {
    const std::int64_t per_image = layout.tile_rows * layout.chunks_per_row;
    image = index / per_image;
    row = index % per_image / layout.chunks_per_row;
    col = index % layout.chunks_per_row * layout.chunk_tiles;
    tiles = std::min(layout.chunk_tiles, layout.tile_cols - col);
    first_tile = (image * layout.tile_rows + row) * layout.tile_cols + col;
  }
};

// A transform's work items: every chunk times ranges of channel blocks, as many ranges as
// give each thread a few items when the chunks alone would not (small images, N = 1).
struct Split {
  std::int64_t chunks, blocks, ranges, blocks_per_range;
  Split(std::int64_t chunk_count, std::int64_t channels, unsigned threads)
      : chunks(chunk_count), blocks(ceil_div(channels, kLanes)) {
    ranges = std::clamp<std::int64_t>(ceil_div(4 * threads, chunks), 1, blocks);
    blocks_per_range = ceil_div(blocks, ranges);
  }
  std::size_t items() const { return static_cast<std::size_t>(chunks * ranges); }
  // Channel blocks [first, end) of item `item` (of chunk item / ranges); may be empty.
  std::pair<std::int64_t, std::int64_t> blocks_of(std::int64_t item) const {
    const std::int64_t first = item % ranges * blocks_per_range;
    return {first, std::min(first + blocks_per_range, blocks)};
  }
};

using Range = std::pair<std::int64_t, std::int64_t>;
Range range_of(std::size_t begin, std::size_t end) {
  return {static_cast<std::int64_t>(begin), static_cast<std::int64_t>(end)};
}

// U[position][ko][ci] = (G g G^T)[position] of filter (ko, ci), ko over all groups.
void transform_filter(const Conv& cv, const Layout& layout, const KernelVariant& k, float* u,
                      ThreadPool& pool) {
  const std::int64_t blocks = ceil_div(cv.cg, kLanes), outputs = cv.groups * cv.kg;
  const bool aligned = reinterpret_cast<std::uintptr_t>(u) % 64 == 0 && cv.cg % kLanes == 0;
  const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
    for (auto [item, last] = range_of(begin, end); item < last; ++item) {
      const std::int64_t ko = item / blocks, ci = item % blocks * kLanes, group = ko / cv.kg;
      FilterArgs a;
      a.w = cv.filter + cv.f_base + group * cv.f_group + (ko % cv.kg) * cv.f_ko + ci * cv.f_ci;
      a.ci_stride = cv.f_ci, a.r_stride = cv.f_r, a.s_stride = cv.f_s;
      a.lanes = static_cast<int>(std::min<std::int64_t>(kLanes, cv.cg - ci));
      a.u = u + ko * cv.cg + ci;
      a.position_stride = layout.u_position;
      a.stream = a.lanes == kLanes && aligned;
      k.filter(a);
    }
    stream_fence();
  };
  pool.parallel_for(static_cast<std::size_t>(outputs * blocks), body);
}

// V[position][tile][c] = (B^T d B)[position] of the tile's patch in channel c.
void transform_input(const Conv& cv, const Layout& layout, int m, const KernelVariant& k, float* v,
                     ThreadPool& pool) {
  const Split split(layout.chunks, cv.groups * cv.cg, pool.size());
  const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
    for (auto [item, last] = range_of(begin, end); item < last; ++item) {
      const Chunk chunk(layout, item / split.ranges);
      InputArgs a;
      std::tie(a.first_block, a.end_block) = split.blocks_of(item);
      if (a.first_block >= a.end_block) continue;
      a.in = cv.in + chunk.image * cv.in_image;
      a.channels = cv.groups * cv.cg;
      a.plane = cv.h * cv.w, a.h = cv.h, a.w = cv.w;
      a.ih = chunk.row * m - cv.pad_h, a.iw = chunk.col * m - cv.pad_w;
      a.tiles = static_cast<int>(chunk.tiles);
      a.v = v + chunk.first_tile * layout.c_pad;
      a.position_stride = layout.v_position, a.tile_stride = layout.c_pad;
      a.stream = reinterpret_cast<std::uintptr_t>(v) % 64 == 0;
      k.input(a);
    }
    stream_fence();
  };
  pool.parallel_for(split.items(), body);
}

// M[position][:, group] = V[position][:, group] U[position][group]^T: one GEMM per
// position and group, each thread running whole GEMMs single-threaded (faster here than
// parallel_sgemm on each, which has every thread pack all of V), in row panels where the
// GEMMs alone would leave threads idle at the end.
void multiply(const Conv& cv, const Layout& layout, const float* u, const float* v, float* mm,
              ThreadPool& pool) {
  const std::int64_t gemms = layout.positions * cv.groups, tiles = layout.tiles;
  const std::int64_t panels = std::clamp<std::int64_t>(
      pool.size() / std::gcd<std::int64_t>(gemms, pool.size()), 1, ceil_div(tiles, kLanes));
  const std::int64_t panel_rows = round_up(ceil_div(tiles, panels), kLanes);
  const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
    for (auto [item, last] = range_of(begin, end); item < last; ++item) {
      const std::int64_t gemm = item / panels, row = item % panels * panel_rows;
      const std::int64_t position = gemm / cv.groups, group = gemm % cv.groups;
      const std::int64_t rows = std::min(panel_rows, tiles - row);
      if (rows <= 0) continue;
      sgemm(Transpose::kNo, Transpose::kYes, rows, cv.kg, cv.cg, 1.0f,
            v + position * layout.v_position + row * layout.c_pad + group * cv.cg, layout.c_pad,
            u + position * layout.u_position + group * cv.kg * cv.cg, cv.cg, 0.0f,
            mm + position * layout.m_position + row * layout.k_pad + group * cv.kg, layout.k_pad);
    }
  };
  pool.parallel_for(static_cast<std::size_t>(gemms * panels), body);
}

// out = alpha (A^T M A) + beta out, clipped to the output.
void transform_output(const Conv& cv, const Layout& layout, int m, const KernelVariant& k,
                      const float* mm, Scaling scaling, ThreadPool& pool) {
  const Split split(layout.chunks, cv.groups * cv.kg, pool.size());
  const auto body = [&](std::size_t begin, std::size_t end, unsigned) {
    for (auto [item, last] = range_of(begin, end); item < last; ++item) {
      const Chunk chunk(layout, item / split.ranges);
      OutputArgs a;
      std::tie(a.first_block, a.end_block) = split.blocks_of(item);
      if (a.first_block >= a.end_block) continue;
      a.m = mm + chunk.first_tile * layout.k_pad;
      a.position_stride = layout.m_position, a.tile_stride = layout.k_pad;
      a.channels = cv.groups * cv.kg;
      a.out = cv.out + chunk.image * cv.out_image;
      a.plane = cv.p * cv.q, a.p = cv.p, a.q = cv.q;
      a.oh = chunk.row * m, a.ow = chunk.col * m;
      a.tiles = static_cast<int>(chunk.tiles);
      a.alpha = static_cast<float>(scaling.alpha), a.beta = static_cast<float>(scaling.beta);
      a.accumulate = scaling.beta != 0;
      k.output(a);
    }
  };
  pool.parallel_for(split.items(), body);
}

}  // namespace

std::size_t workspace_bytes(const Conv& cv, int m) {
  return Layout(cv, m).bytes();
}

void run(const Conv& cv, int m, const KernelVariant& kernels, Scaling scaling, void* workspace,
         ThreadPool& pool) {
  const Layout layout(cv, m);
  float* u = static_cast<float*>(workspace);
  float* v = u + layout.positions * layout.u_position;
  float* mm = v + layout.positions * layout.v_position;
  transform_filter(cv, layout, kernels, u, pool);
  transform_input(cv, layout, m, kernels, v, pool);
  multiply(cv, layout, u, v, mm, pool);
  transform_output(cv, layout, m, kernels, mm, scaling, pool);
}

}  // namespace ucudnn::cpu::winograd
