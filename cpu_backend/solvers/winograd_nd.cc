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
// AVX-512, AVX2 and the baseline (target_clones), picked at load time. The lane work itself
// (transforms of 16 lanes, and what they read) is in winograd_nd_lanes.h.
#include <algorithm>
#include <cstring>
#include <vector>

#include "gemm.h"
#include "geometry_nd.h"
#include "kernels/winograd_vector.h"
#include "solvers/nd_solvers.h"
#include "solvers/winograd_nd_lanes.h"
#include "thread_pool.h"
#include "winograd_transforms.h"

namespace ucudnn::cpu {

namespace {

using namespace winograd_nd;
using winograd::kLanes;
using winograd::Vec;

// Tiles per block: enough for every point's GEMM to reuse its transformed filter across
// many tiles (its bytes are re-read per block), few enough that a block's transform-domain
// data stays near kBlockBytes where channels are few.
constexpr std::int64_t kMinBlockTiles = 128;
constexpr std::size_t kBlockBytes = std::size_t{16} << 20;

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
