// N-dimensional Winograd F(m, 3) in every spatial dimension (F(m^d, 3^d)), the transforms
// generated from interpolation points (winograd_transforms.h): the filter transformed once
// per group, then blocks of tiles transformed, multiplied in the transform domain by one
// GEMM per transform point (in parallel, single-threaded each), and transformed back.
// BackwardData is the forward convolution of dy with the filter rotated and its channels
// swapped, padded by 2 - pad.
//
// The transforms work on 16 lanes at once (GCC vector extensions, winograd_vector.h): 16
// input channels of one filter, or 16 consecutive tiles of one channel, so that every step
// of the transform is a vector multiply-add with a broadcast coefficient, and what goes to
// and from the GEMMs is stored as whole vectors. The lane functions are compiled for
// AVX-512, AVX2 and the baseline (target_clones), picked at load time.
#include <algorithm>
#include <cstring>
#include <vector>

#include "gemm.h"
#include "geometry_nd.h"
#include "kernels/winograd_vector.h"
#include "solvers/nd_solvers.h"
#include "thread_pool.h"
#include "winograd_transforms.h"

namespace ucudnn::cpu {

namespace {

using winograd::kLanes;
using winograd::Vec;

constexpr int kR = 3;
// Tiles per block: enough for every point's GEMM to reuse its transformed filter across
// many tiles (its bytes are re-read per block), few enough that a block's transform-domain
// data stays near kBlockBytes where channels are few.
constexpr std::int64_t kMinBlockTiles = 128;
constexpr std::size_t kBlockBytes = std::size_t{16} << 20;

constexpr int power(int base, int exponent) {
  return exponent == 0 ? 1 : base * power(base, exponent - 1);
}

// One forward convolution with stride 1, dilation 1, a 3^d filter, per group: x (N, groups *
// cin, in) -> y (N, groups * cout, out). Spatial dimensions as GeometryNd has them (the
// problem's in the last places).
struct ForwardView {
  std::int64_t n, groups, cin, cout;
  Extent3 in, out, pad;
  const float* x;
  const std::int64_t* xs;  // N, C, 3 spatial
  float* y;
  const std::int64_t* ys;
  // Filter element (group, co, ci, f) at w + group * w_group + co * w_out + ci * w_in + the
  // spatial offset of f, read reversed (extent - 1 - f) where `reversed`.
  const float* w;
  std::int64_t w_group, w_out, w_in;
  const std::int64_t* w_spatial;  // 3 strides
  Extent3 filter;
  bool reversed;
};

// The transforms of F(kM, 3) in float, generated once.
template <int kM>
struct Matrices {
  static constexpr int kA = kM + kR - 1;
  float at[kM * kA], g[kA * kR], bt[kA * kA];

  static const Matrices& get() {
    static const Matrices matrices;
    return matrices;
  }

 private:
  Matrices() {
    const auto t = generate_winograd_transforms(kM, kR, winograd_points(kM, kR));
    std::copy(t.at.begin(), t.at.end(), at);
    std::copy(t.g.begin(), t.g.end(), g);
    std::copy(t.bt.begin(), t.bt.end(), bt);
  }
};

// Applies mat (kOut x kIn, row-major) along each of the kRank dimensions of a dense block of
// kIn^kRank lane vectors, giving kOut^kRank of them, innermost dimension first.
template <int kRank, int kIn, int kOut>
UCUDNN_INLINE void transform_lanes(const float* mat, const Vec* in, Vec* out) {
  if constexpr (kRank == 1) {
#pragma GCC unroll 8
    for (int o = 0; o < kOut; ++o) {
      Vec sum = mat[o * kIn] * in[0];
#pragma GCC unroll 8
      for (int j = 1; j < kIn; ++j) sum += mat[o * kIn + j] * in[j];
      out[o] = sum;
    }
  } else {
    static_assert(kRank == 3);
    Vec a[kIn * kIn * kOut], b[kIn * kOut * kOut];
    for (int i = 0; i < kIn * kIn; ++i)
      transform_lanes<1, kIn, kOut>(mat, in + i * kIn, a + i * kOut);
    for (int i0 = 0; i0 < kIn; ++i0)
      for (int o = 0; o < kOut; ++o)
        for (int i2 = 0; i2 < kOut; ++i2) {
          Vec sum = mat[o * kIn] * a[(i0 * kIn) * kOut + i2];
#pragma GCC unroll 8
          for (int j = 1; j < kIn; ++j) sum += mat[o * kIn + j] * a[(i0 * kIn + j) * kOut + i2];
          b[(i0 * kOut + o) * kOut + i2] = sum;
        }
    constexpr int kPlane = kOut * kOut;
    for (int o = 0; o < kOut; ++o)
      for (int i = 0; i < kPlane; ++i) {
        Vec sum = mat[o * kIn] * b[i];
#pragma GCC unroll 8
        for (int j = 1; j < kIn; ++j) sum += mat[o * kIn + j] * b[j * kPlane + i];
        out[o * kPlane + i] = sum;
      }
  }
}

// Stores the first `lanes` lanes of v at p.
UCUDNN_INLINE void store_lanes(float* p, const Vec& v, int lanes) {
  if (lanes == kLanes)
    winograd::store(p, v);
  else
    std::memcpy(p, &v, static_cast<std::size_t>(lanes) * sizeof(float));
}

// The tiles of one image: count per spatial dimension; tile t of the flattened (N, tiles)
// order has image t / per_image and its first output position below.
struct TileGrid {
  Extent3 count;
  std::int64_t per_image;
  int tile[3];

  UCUDNN_INLINE void locate(std::int64_t t, std::int64_t& image, Extent3& origin) const {
    image = t / per_image;
    std::int64_t rest = t % per_image;
    for (int d = 2; d >= 0; --d) {
      origin[d] = rest % count[d] * tile[d];
      rest /= count[d];
    }
  }
};

// Where the transform-domain data lives: per point, U (cout x cin), V (cin x block) and M
// (cout x block), row-major. Consecutive points are one cache line further apart than their
// matrices need: the transforms write all points of a tile at once, and at a power-of-two
// distance those writes would all fall into one cache set.
struct Layout {
  std::int64_t block;  // tiles per block, the row length of V and M
  std::int64_t u_point, v_point, m_point;
  std::int64_t floats;  // the whole workspace

  Layout(std::int64_t points, std::int64_t cin, std::int64_t cout, std::int64_t block_tiles)
      : block(block_tiles),
        u_point(padded(cout * cin)),
        v_point(padded(cin * block_tiles)),
        m_point(padded(cout * block_tiles)),
        floats(points * (u_point + v_point + m_point)) {}

 private:
  static std::int64_t padded(std::int64_t floats) {
    return (floats + kLanes - 1) / kLanes * kLanes + kLanes;
  }
};

// Spatial positions of a kE^kRank window (the last kRank dimensions), flattened.
template <int kRank, int kE>
struct Window {
  static constexpr int kSize = power(kE, kRank);
  static UCUDNN_INLINE Extent3 position(int i) {
    Extent3 at = {0, 0, 0};
    for (int d = 2; d >= 3 - kRank; --d) at[d] = i % kE, i /= kE;
    return at;
  }
  // Element offsets of the window's positions in a tensor with these 3 spatial strides.
  static UCUDNN_INLINE void offsets(const std::int64_t* strides, std::int64_t (&out)[kSize]) {
    for (int i = 0; i < kSize; ++i) {
      const Extent3 at = position(i);
      out[i] = at[0] * strides[0] + at[1] * strides[1] + at[2] * strides[2];
    }
  }
};

// The lane work of F(kM^kRank, 3^kRank): filter, input and output transforms of 16 lanes.
template <int kM, int kRank>
struct Lanes {
  static constexpr int kA = kM + kR - 1;
  static constexpr int kPoints = power(kA, kRank);
  using Filter = Window<kRank, kR>;
  using Patch = Window<kRank, kA>;
  using Tile = Window<kRank, kM>;

  // The filter's tap offsets, reversed where the view says so.
  static UCUDNN_INLINE void filter_offsets(const ForwardView& v,
                                           std::int64_t (&out)[Filter::kSize]) {
    for (int f = 0; f < Filter::kSize; ++f) {
      const Extent3 at = Filter::position(f);
      out[f] = 0;
      for (int d = 0; d < 3; ++d)
        out[f] += (v.reversed ? v.filter[d] - 1 - at[d] : at[d]) * v.w_spatial[d];
    }
  }

  // U[p][co][ci0 + lane] for `lanes` input channels of output channel co.
  static UCUDNN_INLINE void filter(const ForwardView& v, const std::int64_t* taps,
                                   std::int64_t group, std::int64_t co, std::int64_t ci0, int lanes,
                                   const Layout& layout, float* u) {
    alignas(64) float raw[Filter::kSize][kLanes];
    const float* w = v.w + group * v.w_group + co * v.w_out + ci0 * v.w_in;
    for (int lane = 0; lane < kLanes; ++lane)
      for (int f = 0; f < Filter::kSize; ++f)
        raw[f][lane] = lane < lanes ? w[lane * v.w_in + taps[f]] : 0.0f;
    Vec in[Filter::kSize], out[kPoints];
    for (int f = 0; f < Filter::kSize; ++f) winograd::load(in[f], raw[f]);
    transform_lanes<kRank, kR, kA>(Matrices<kM>::get().g, in, out);
    for (int p = 0; p < kPoints; ++p)
      store_lanes(u + p * layout.u_point + co * v.cin + ci0, out[p], lanes);
  }

  // V[p][ci][t0 + lane] for `lanes` consecutive tiles from global tile `first`.
  static UCUDNN_INLINE void input(const ForwardView& v, const TileGrid& grid,
                                  const std::int64_t* patch, std::int64_t group, std::int64_t ci,
                                  std::int64_t first, int lanes, const Layout& layout, float* vt) {
    alignas(64) float raw[Patch::kSize][kLanes];
    for (int lane = lanes; lane < kLanes; ++lane)  // lanes past the block's tiles compute zeros
      for (int a = 0; a < Patch::kSize; ++a) raw[a][lane] = 0.0f;
    constexpr int kE0 = kRank == 3 ? kA : 1, kE1 = kE0, kE2 = kA;
    for (int lane = 0; lane < lanes; ++lane) {
      std::int64_t image;
      Extent3 origin;
      grid.locate(first + lane, image, origin);
      // The patch positions inside the image: [low, high) per dimension.
      int low[3], high[3];
      bool inside = true;
      for (int d = 0; d < 3; ++d) {
        origin[d] -= v.pad[d];
        const int extent = d == 2 ? kE2 : kE0;
        low[d] = static_cast<int>(std::clamp<std::int64_t>(-origin[d], 0, extent));
        high[d] = static_cast<int>(std::clamp<std::int64_t>(v.in[d] - origin[d], low[d], extent));
        inside = inside && low[d] == 0 && high[d] == extent;
      }
      const float* x = v.x + image * v.xs[0] + (group * v.cin + ci) * v.xs[1];
      const std::int64_t base = origin[0] * v.xs[2] + origin[1] * v.xs[3] + origin[2] * v.xs[4];
      if (inside) {
        for (int a = 0; a < Patch::kSize; ++a) raw[a][lane] = x[base + patch[a]];
        continue;
      }
      int a = 0;
      for (int a0 = 0; a0 < kE0; ++a0)
        for (int a1 = 0; a1 < kE1; ++a1) {
          const bool row = a0 >= low[0] && a0 < high[0] && a1 >= low[1] && a1 < high[1];
          for (int a2 = 0; a2 < kE2; ++a2, ++a)
            raw[a][lane] = row && a2 >= low[2] && a2 < high[2] ? x[base + patch[a]] : 0.0f;
        }
    }
    Vec in[kPoints], out[kPoints];
    for (int a = 0; a < kPoints; ++a) winograd::load(in[a], raw[a]);
    transform_lanes<kRank, kA, kA>(Matrices<kM>::get().bt, in, out);
    const std::int64_t t0 = first % layout.block;  // blocks start at multiples of the block
    for (int p = 0; p < kPoints; ++p)
      store_lanes(vt + p * layout.v_point + ci * layout.block + t0, out[p], lanes);
  }

  // y = alpha (A^T M A) + beta y for `lanes` consecutive tiles of output channel co.
  static UCUDNN_INLINE void output(const ForwardView& v, const TileGrid& grid,
                                   const std::int64_t* tile, std::int64_t group, std::int64_t co,
                                   std::int64_t first, int lanes, const Layout& layout,
                                   const float* mt, float alpha, float beta) {
    const std::int64_t t0 = first % layout.block;
    Vec in[kPoints], out[Tile::kSize];
    for (int p = 0; p < kPoints; ++p)
      winograd::load(in[p], mt + p * layout.m_point + co * layout.block + t0);
    transform_lanes<kRank, kA, kM>(Matrices<kM>::get().at, in, out);
    alignas(64) float result[Tile::kSize][kLanes];
    for (int i = 0; i < Tile::kSize; ++i) winograd::store(result[i], out[i]);
    for (int lane = 0; lane < lanes; ++lane) {
      std::int64_t image;
      Extent3 origin;
      grid.locate(first + lane, image, origin);
      float* y = v.y + image * v.ys[0] + (group * v.cout + co) * v.ys[1] + origin[0] * v.ys[2] +
                 origin[1] * v.ys[3] + origin[2] * v.ys[4];
      bool inside = true;
      for (int d = 3 - kRank; d < 3; ++d) inside = inside && origin[d] + kM <= v.out[d];
      for (int i = 0; i < Tile::kSize; ++i) {
        if (!inside) {
          const Extent3 at = Tile::position(i);
          if (origin[0] + at[0] >= v.out[0] || origin[1] + at[1] >= v.out[1] ||
              origin[2] + at[2] >= v.out[2])
            continue;
        }
        float& target = y[tile[i]];
        target = beta == 0 ? alpha * result[i][lane] : alpha * result[i][lane] + beta * target;
      }
    }
  }
};

// The lane functions compiled per instruction set. The block of 16 lanes is a job's unit;
// the clones take whole job ranges so that dispatch costs nothing.
#define UCUDNN_ISA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

struct JobRange {
  std::int64_t begin, end;
};

// Job `job` of the (channel, group of 16 tiles) jobs over a block of `count` tiles.
struct LaneGroup {
  std::int64_t channel, tile;  // tile: the group's first, within the block
  int lanes;
};
UCUDNN_INLINE LaneGroup lane_group(std::int64_t job, std::int64_t count) {
  const std::int64_t groups = (count + kLanes - 1) / kLanes, tile = job % groups * kLanes;
  return {job / groups, tile, static_cast<int>(std::min<std::int64_t>(kLanes, count - tile))};
}

template <int kM, int kRank>
struct Jobs {
  using L = Lanes<kM, kRank>;
  // Jobs: (co, block of 16 input channels).
  static UCUDNN_INLINE void filters(const ForwardView& v, std::int64_t group, JobRange jobs,
                                    const Layout& layout, float* u) {
    const std::int64_t blocks = (v.cin + kLanes - 1) / kLanes;
    std::int64_t taps[L::Filter::kSize];
    L::filter_offsets(v, taps);
    for (std::int64_t job = jobs.begin; job < jobs.end; ++job) {
      const std::int64_t co = job / blocks, ci0 = job % blocks * kLanes;
      L::filter(v, taps, group, co, ci0,
                static_cast<int>(std::min<std::int64_t>(kLanes, v.cin - ci0)), layout, u);
    }
  }
  // Jobs: (ci, group of 16 tiles of the block).
  static UCUDNN_INLINE void inputs(const ForwardView& v, const TileGrid& grid, std::int64_t group,
                                   std::int64_t first, std::int64_t count, JobRange jobs,
                                   const Layout& layout, float* vt) {
    std::int64_t patch[L::Patch::kSize];
    L::Patch::offsets(v.xs + 2, patch);
    for (std::int64_t job = jobs.begin; job < jobs.end; ++job) {
      const LaneGroup at = lane_group(job, count);
      L::input(v, grid, patch, group, at.channel, first + at.tile, at.lanes, layout, vt);
    }
  }
  // Jobs: (co, group of 16 tiles of the block).
  static UCUDNN_INLINE void outputs(const ForwardView& v, const TileGrid& grid, std::int64_t group,
                                    std::int64_t first, std::int64_t count, JobRange jobs,
                                    const Layout& layout, const float* mt, float alpha,
                                    float beta) {
    std::int64_t tile[L::Tile::kSize];
    L::Tile::offsets(v.ys + 2, tile);
    for (std::int64_t job = jobs.begin; job < jobs.end; ++job) {
      const LaneGroup at = lane_group(job, count);
      L::output(v, grid, tile, group, at.channel, first + at.tile, at.lanes, layout, mt, alpha,
                beta);
    }
  }
};

using FilterJobs = void (*)(const ForwardView&, std::int64_t group, JobRange, const Layout&,
                            float* u);
using InputJobs = void (*)(const ForwardView&, const TileGrid&, std::int64_t group,
                           std::int64_t first, std::int64_t count, JobRange, const Layout&,
                           float* vt);
using OutputJobs = void (*)(const ForwardView&, const TileGrid&, std::int64_t group,
                            std::int64_t first, std::int64_t count, JobRange, const Layout&,
                            const float* mt, float alpha, float beta);

// The clones: one set per (m, rank) the solvers support.
#define UCUDNN_WINOGRAD_ND_CLONES(M, RANK)                                                     \
  UCUDNN_ISA_CLONES void filters_##M##_##RANK(const ForwardView& v, std::int64_t group,        \
                                              JobRange jobs, const Layout& layout, float* u) { \
    Jobs<M, RANK>::filters(v, group, jobs, layout, u);                                         \
  }                                                                                            \
  UCUDNN_ISA_CLONES void inputs_##M##_##RANK(                                                  \
      const ForwardView& v, const TileGrid& grid, std::int64_t group, std::int64_t first,      \
      std::int64_t count, JobRange jobs, const Layout& layout, float* vt) {                    \
    Jobs<M, RANK>::inputs(v, grid, group, first, count, jobs, layout, vt);                     \
  }                                                                                            \
  UCUDNN_ISA_CLONES void outputs_##M##_##RANK(                                                 \
      const ForwardView& v, const TileGrid& grid, std::int64_t group, std::int64_t first,      \
      std::int64_t count, JobRange jobs, const Layout& layout, const float* mt, float alpha,   \
      float beta) {                                                                            \
    Jobs<M, RANK>::outputs(v, grid, group, first, count, jobs, layout, mt, alpha, beta);       \
  }

UCUDNN_WINOGRAD_ND_CLONES(2, 1)
UCUDNN_WINOGRAD_ND_CLONES(2, 3)
UCUDNN_WINOGRAD_ND_CLONES(4, 1)
UCUDNN_WINOGRAD_ND_CLONES(4, 3)

struct CloneSet {
  FilterJobs filters;
  InputJobs inputs;
  OutputJobs outputs;
};

template <int kM>
CloneSet clones(int rank) {
  if constexpr (kM == 2)
    return rank == 3 ? CloneSet{filters_2_3, inputs_2_3, outputs_2_3}
                     : CloneSet{filters_2_1, inputs_2_1, outputs_2_1};
  else
    return rank == 3 ? CloneSet{filters_4_3, inputs_4_3, outputs_4_3}
                     : CloneSet{filters_4_1, inputs_4_1, outputs_4_1};
}

// F(kM, 3) in `rank` dimensions over a ForwardView: the blocking and the phases.
template <int kM>
class WinogradNd {
 public:
  static constexpr int kA = kM + kR - 1;

  explicit WinogradNd(int rank) : rank_(rank), clones_(clones<kM>(rank)) {
    for (int d = 0; d < 3; ++d) tile_[d] = d >= 3 - rank ? kM : 1;
    points_ = rank == 3 ? kA * kA * kA : kA;
  }

  // Tiles per block, a multiple of the lane count unless the whole batch has fewer.
  std::int64_t block_tiles(const ForwardView& v) const {
    const std::int64_t total = v.n * grid(v).per_image;
    const auto per_tile = static_cast<std::size_t>(points_ * (v.cin + v.cout)) * sizeof(float);
    std::int64_t tiles =
        std::max<std::int64_t>(kMinBlockTiles, static_cast<std::int64_t>(kBlockBytes / per_tile));
    tiles = (tiles + kLanes - 1) / kLanes * kLanes;
    return std::min(tiles, (total + kLanes - 1) / kLanes * kLanes);
  }
  Layout layout(const ForwardView& v) const {
    return Layout(points_, v.cin, v.cout, block_tiles(v));
  }
  std::size_t workspace_floats(const ForwardView& v) const {
    return static_cast<std::size_t>(layout(v).floats);
  }

  void run(const ForwardView& v, float alpha, float beta, float* workspace,
           ThreadPool& pool) const {
    const TileGrid tiles = grid(v);
    const Layout at = layout(v);
    const std::int64_t total = v.n * tiles.per_image;
    float* u = workspace;
    float* vt = u + points_ * at.u_point;
    float* mt = vt + points_ * at.v_point;
    const auto parallel = [&pool](std::int64_t jobs, const auto& body) {
      pool.parallel_for(
          static_cast<std::size_t>(jobs), [&](std::size_t b, std::size_t e, unsigned) {
            body(JobRange{static_cast<std::int64_t>(b), static_cast<std::int64_t>(e)});
          });
    };
    for (std::int64_t group = 0; group < v.groups; ++group) {
      parallel(v.cout * ((v.cin + kLanes - 1) / kLanes),
               [&](JobRange jobs) { clones_.filters(v, group, jobs, at, u); });
      for (std::int64_t first = 0; first < total; first += at.block) {
        const std::int64_t count = std::min(at.block, total - first);
        const std::int64_t lane_groups = (count + kLanes - 1) / kLanes;
        parallel(v.cin * lane_groups, [&](JobRange jobs) {
          clones_.inputs(v, tiles, group, first, count, jobs, at, vt);
        });
        // Columns past `count` up to a whole lane group hold zeros and are never read.
        const auto columns = static_cast<std::size_t>(lane_groups * kLanes);
        const auto block = static_cast<std::size_t>(at.block);
        pool.parallel_for(
            static_cast<std::size_t>(points_), [&](std::size_t b, std::size_t e, unsigned) {
              for (auto p = static_cast<std::int64_t>(b); p < static_cast<std::int64_t>(e); ++p)
                sgemm(Transpose::kNo, Transpose::kNo, static_cast<std::size_t>(v.cout), columns,
                      static_cast<std::size_t>(v.cin), 1.0f, u + p * at.u_point,
                      static_cast<std::size_t>(v.cin), vt + p * at.v_point, block, 0.0f,
                      mt + p * at.m_point, block);
            });
        parallel(v.cout * lane_groups, [&](JobRange jobs) {
          clones_.outputs(v, tiles, group, first, count, jobs, at, mt, alpha, beta);
        });
      }
    }
  }

 private:
  TileGrid grid(const ForwardView& v) const {
    TileGrid g;
    for (int d = 0; d < 3; ++d) {
      g.tile[d] = tile_[d];
      g.count[d] = (v.out[d] + tile_[d] - 1) / tile_[d];
    }
    g.per_image = GeometryNd::volume(g.count);
    return g;
  }

  int rank_;
  CloneSet clones_;
  int tile_[3];
  std::int64_t points_;
};

template <int kM>
class WinogradNdSolver final : public Solver {
 public:
  std::string_view name() const override {
    return kM == 2 ? "WINOGRAD_F2_3_ND" : "WINOGRAD_F4_3_ND";
  }

  bool applies(const KernelKey& kernel) const override {
    const ConvolutionProblem& p = kernel.problem;
    if (!is_cpu_nd_problem(p) || p.spatial_rank() == 2 || p.data_type != DataType::kFloat)
      return false;
    const GeometryNd g(p);
    for (int d = 3 - g.rank; d < 3; ++d)
      if (g.filter[d] != kR || g.stride[d] != 1 || g.dilation[d] != 1 || g.pad[d] > kR - 1)
        return false;
    return kernel.operation != Operation::kBackwardFilter;
  }

  std::size_t workspace_bytes(const KernelKey& kernel) const override {
    const GeometryNd g(kernel.problem);
    return transforms(g.rank).workspace_floats(view(kernel, g, Tensors{})) * sizeof(float);
  }

  // Stated per variant from the measured normwise errors (winograd_transforms_test.cc), with
  // a margin: F(2x2x2, 3x3x3) about 2e-7, as good as a direct sum; F(4x4x4, 3x3x3) about 3e-6.
  double tolerance(const KernelKey& kernel) const override {
    return kM == 4 && kernel.problem.spatial_rank() == 3 ? 5e-5 : Solver::tolerance(kernel);
  }

  void run(const KernelKey& kernel, const Tensors& tensors, Scaling scaling, Workspace workspace,
           ThreadPool& pool) const override {
    const GeometryNd g(kernel.problem);
    transforms(g.rank).run(view(kernel, g, tensors), static_cast<float>(scaling.alpha),
                           static_cast<float>(scaling.beta), static_cast<float*>(workspace.data),
                           pool);
  }

 private:
  static const WinogradNd<kM>& transforms(int rank) {
    static const WinogradNd<kM> one(1), three(3);
    return rank == 3 ? three : one;
  }

  // Forward as it is; BackwardData as the forward convolution of dy with the filter rotated
  // (reversed once more) and its K and C strides swapped.
  static ForwardView view(const KernelKey& kernel, const GeometryNd& g, const Tensors& t) {
    const bool forward = kernel.operation == Operation::kForward;
    ForwardView v{};
    v.n = g.n;
    v.groups = g.groups;
    v.cin = forward ? g.cg : g.kg;
    v.cout = forward ? g.kg : g.cg;
    v.in = forward ? g.in : g.out;
    v.out = forward ? g.out : g.in;
    v.pad = {0, 0, 0};
    for (int d = 3 - g.rank; d < 3; ++d) v.pad[d] = forward ? g.pad[d] : kR - 1 - g.pad[d];
    v.x = static_cast<const float*>(forward ? t.x : t.y);
    v.xs = forward ? g.xs : g.ys;
    v.y = static_cast<float*>(forward ? t.y : t.x);
    v.ys = forward ? g.ys : g.xs;
    v.w = static_cast<const float*>(t.w);
    v.w_group = g.kg * g.ws[0];
    v.w_out = forward ? g.ws[0] : g.ws[1];
    v.w_in = forward ? g.ws[1] : g.ws[0];
    v.w_spatial = g.ws + 2;
    v.filter = g.filter;
    v.reversed = forward ? g.flip : !g.flip;
    return v;
  }
};

}  // namespace

const Solver& winograd_f2_3_nd_solver() {
  static const WinogradNdSolver<2> solver;
  return solver;
}

const Solver& winograd_f4_3_nd_solver() {
  static const WinogradNdSolver<4> solver;
  return solver;
}

}  // namespace ucudnn::cpu
