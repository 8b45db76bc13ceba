// N-dimensional Winograd F(m, 3) in every spatial dimension (F(m^d, 3^d)), the transforms
// generated from interpolation points (winograd_transforms.h): the filter transformed once
// per group, then blocks of tiles transformed, multiplied in the transform domain by one
// GEMM per transform point (in parallel, single-threaded each), and transformed back.
// BackwardData is the forward convolution of dy with the filter rotated and its channels
// swapped, padded by 2 - pad.
#include <algorithm>
#include <vector>

#include "gemm.h"
#include "geometry_nd.h"
#include "solvers/nd_solvers.h"
#include "thread_pool.h"
#include "winograd_transforms.h"

namespace ucudnn::cpu {

namespace {

constexpr int kR = 3;
// Transform-domain data of a block of tiles: about this many bytes.
constexpr std::size_t kBlockBytes = std::size_t{4} << 20;

struct Matrix {  // float copy of a transform, rows x cols
  int rows = 1, cols = 1;
  std::vector<float> v{1.0f};
};
Matrix to_float(const std::vector<double>& values, int rows, int cols) {
  Matrix m;
  m.rows = rows, m.cols = cols;
  m.v.assign(values.begin(), values.end());
  return m;
}

// Applies per spatial dimension d the matrix mats[d] (rows x extent[d]) to a dense 3-d block:
// in has extent `in`, out gets extent (mats[0].rows, mats[1].rows, mats[2].rows).
void transform(const Matrix* const mats[3], const float* in, float* out, float* scratch) {
  int e0 = mats[0]->cols, e1 = mats[1]->cols, e2 = mats[2]->cols;
  // along dimension 2
  float* a = scratch;
  const int r2 = mats[2]->rows;
  for (int i = 0; i < e0 * e1; ++i)
    for (int o = 0; o < r2; ++o) {
      float sum = 0;
      for (int j = 0; j < e2; ++j) sum += mats[2]->v[o * e2 + j] * in[i * e2 + j];
      a[i * r2 + o] = sum;
    }
  e2 = r2;
  // along dimension 1
  float* b = scratch + 512;
  const int r1 = mats[1]->rows;
  for (int i0 = 0; i0 < e0; ++i0)
    for (int o = 0; o < r1; ++o)
      for (int i2 = 0; i2 < e2; ++i2) {
        float sum = 0;
        for (int j = 0; j < e1; ++j) sum += mats[1]->v[o * e1 + j] * a[(i0 * e1 + j) * e2 + i2];
        b[(i0 * r1 + o) * e2 + i2] = sum;
      }
  e1 = r1;
  // along dimension 0
  const int r0 = mats[0]->rows;
  for (int o = 0; o < r0; ++o)
    for (int i = 0; i < e1 * e2; ++i) {
      float sum = 0;
      for (int j = 0; j < e0; ++j) sum += mats[0]->v[o * e0 + j] * b[j * e1 * e2 + i];
      out[o * e1 * e2 + i] = sum;
    }
}

// One forward convolution with stride 1, dilation 1, a 3^d filter: in (N, groups * cin,
// in extent) -> out (N, groups * cout, out extent).
struct ForwardView {
  std::int64_t n, groups, cin, cout;
  Extent3 in, out, pad;
  const float* x;
  const std::int64_t* xs;  // N, C, 3 spatial
  float* y;
  const std::int64_t* ys;
  std::function<float(std::int64_t co, std::int64_t ci, const Extent3& f)>
      filter;  // global channels
};

class WinogradNd {
 public:
  WinogradNd(int m, int rank) : m_(m), rank_(rank) {
    const auto t = generate_winograd_transforms(m, kR, winograd_points(m, kR));
    alpha_ = t.alpha;
    at_ = to_float(t.at, m, alpha_);
    g_ = to_float(t.g, alpha_, kR);
    bt_ = to_float(t.bt, alpha_, alpha_);
    points_ = 1;
    for (int d = 0; d < 3; ++d) {
      const bool active = d >= 3 - rank;
      tile_[d] = active ? m : 1;
      span_[d] = active ? alpha_ : 1;
      points_ *= span_[d];
      at_d_[d] = active ? &at_ : &identity_;
      g_d_[d] = active ? &g_ : &identity_;
      bt_d_[d] = active ? &bt_ : &identity_;
    }
  }

  std::size_t block_tiles(const ForwardView& v) const {
    const std::int64_t total = v.n * tiles_per_image(v);
    const auto per_tile = static_cast<std::size_t>(points_ * (v.cin + v.cout)) * sizeof(float);
    return static_cast<std::size_t>(
        std::clamp<std::int64_t>(static_cast<std::int64_t>(kBlockBytes / per_tile), 1, total));
  }
  std::size_t workspace_floats(const ForwardView& v) const {
    return static_cast<std::size_t>(points_ * v.cout * v.cin) +
           static_cast<std::size_t>(points_ * (v.cin + v.cout)) * block_tiles(v);
  }

  void run(const ForwardView& v, float alpha, float beta, float* workspace,
           ThreadPool& pool) const {
    const std::int64_t per_image = tiles_per_image(v), total = v.n * per_image;
    const auto block = static_cast<std::int64_t>(block_tiles(v));
    float* u = workspace;
    float* vt = u + points_ * v.cout * v.cin;
    float* mt = vt + points_ * v.cin * block;
    for (std::int64_t group = 0; group < v.groups; ++group) {
      transform_filters(v, group, u, pool);
      for (std::int64_t first = 0; first < total; first += block) {
        const std::int64_t count = std::min(block, total - first);
        transform_inputs(v, group, first, count, block, vt, pool);
        pool.parallel_for(
            static_cast<std::size_t>(points_), [&](std::size_t b, std::size_t e, unsigned) {
              for (auto p = b; p < e; ++p)
                sgemm(Transpose::kNo, Transpose::kNo, static_cast<std::size_t>(v.cout),
                      static_cast<std::size_t>(count), static_cast<std::size_t>(v.cin), 1.0f,
                      u + p * v.cout * v.cin, static_cast<std::size_t>(v.cin),
                      vt + p * v.cin * block, static_cast<std::size_t>(block), 0.0f,
                      mt + p * v.cout * block, static_cast<std::size_t>(block));
            });
        transform_outputs(v, group, first, count, block, mt, alpha, beta, pool);
      }
    }
  }

 private:
  // Tiles per spatial dimension of one image.
  Extent3 tile_counts(const ForwardView& v) const {
    Extent3 count;
    for (int d = 0; d < 3; ++d) count[d] = (v.out[d] + tile_[d] - 1) / tile_[d];
    return count;
  }
  std::int64_t tiles_per_image(const ForwardView& v) const {
    return GeometryNd::volume(tile_counts(v));
  }
  // Tile t of the flattened (N, tiles) order: its image and its first output position.
  void locate(const Extent3& count, std::int64_t t, std::int64_t& n, Extent3& origin) const {
    const std::int64_t per_image = GeometryNd::volume(count);
    n = t / per_image;
    std::int64_t rest = t % per_image;
    for (int d = 2; d >= 0; --d) {
      origin[d] = rest % count[d] * tile_[d];
      rest /= count[d];
    }
  }

  void transform_filters(const ForwardView& v, std::int64_t group, float* u,
                         ThreadPool& pool) const {
    pool.parallel_for(
        static_cast<std::size_t>(v.cout * v.cin), [&](std::size_t b, std::size_t e, unsigned) {
          float raw[27], out[216], scratch[1024];
          for (auto job = static_cast<std::int64_t>(b); job < static_cast<std::int64_t>(e); ++job) {
            const std::int64_t co = job / v.cin, ci = job % v.cin;
            Extent3 f;
            int i = 0;
            for (f[0] = 0; f[0] < (rank_ == 3 ? kR : 1); ++f[0])
              for (f[1] = 0; f[1] < (rank_ >= 2 ? kR : 1); ++f[1])
                for (f[2] = 0; f[2] < kR; ++f[2])
                  raw[i++] = v.filter(group * v.cout + co, group * v.cin + ci, f);
            transform(g_d_, raw, out, scratch);
            for (std::int64_t p = 0; p < points_; ++p) u[(p * v.cout + co) * v.cin + ci] = out[p];
          }
        });
  }

  void transform_inputs(const ForwardView& v, std::int64_t group, std::int64_t first,
                        std::int64_t count, std::int64_t block, float* vt, ThreadPool& pool) const {
    const Extent3 count_of_tiles = tile_counts(v);
    pool.parallel_for(static_cast<std::size_t>(v.cin * count), [&](std::size_t b, std::size_t e,
                                                                   unsigned) {
      float raw[216], out[216], scratch[1024];
      for (auto job = static_cast<std::int64_t>(b); job < static_cast<std::int64_t>(e); ++job) {
        const std::int64_t ci = job / count, t = job % count;
        std::int64_t n;
        Extent3 origin;
        locate(count_of_tiles, first + t, n, origin);
        const float* image = v.x + n * v.xs[0] + (group * v.cin + ci) * v.xs[1];
        int i = 0;
        for (int a0 = 0; a0 < span_[0]; ++a0)
          for (int a1 = 0; a1 < span_[1]; ++a1)
            for (int a2 = 0; a2 < span_[2]; ++a2) {
              const Extent3 at = {origin[0] + a0 - v.pad[0], origin[1] + a1 - v.pad[1],
                                  origin[2] + a2 - v.pad[2]};
              const bool inside = at[0] >= 0 && at[0] < v.in[0] && at[1] >= 0 && at[1] < v.in[1] &&
                                  at[2] >= 0 && at[2] < v.in[2];
              raw[i++] = inside ? image[at[0] * v.xs[2] + at[1] * v.xs[3] + at[2] * v.xs[4]] : 0.0f;
            }
        transform(bt_d_, raw, out, scratch);
        for (std::int64_t p = 0; p < points_; ++p) vt[(p * v.cin + ci) * block + t] = out[p];
      }
    });
  }

  void transform_outputs(const ForwardView& v, std::int64_t group, std::int64_t first,
                         std::int64_t count, std::int64_t block, const float* mt, float alpha,
                         float beta, ThreadPool& pool) const {
    const Extent3 count_of_tiles = tile_counts(v);
    pool.parallel_for(
        static_cast<std::size_t>(v.cout * count), [&](std::size_t b, std::size_t e, unsigned) {
          float raw[216], out[216], scratch[1024];
          for (auto job = static_cast<std::int64_t>(b); job < static_cast<std::int64_t>(e); ++job) {
            const std::int64_t co = job / count, t = job % count;
            for (std::int64_t p = 0; p < points_; ++p) raw[p] = mt[(p * v.cout + co) * block + t];
            transform(at_d_, raw, out, scratch);
            std::int64_t n;
            Extent3 origin;
            locate(count_of_tiles, first + t, n, origin);
            float* image = v.y + n * v.ys[0] + (group * v.cout + co) * v.ys[1];
            int i = 0;
            for (int a0 = 0; a0 < tile_[0]; ++a0)
              for (int a1 = 0; a1 < tile_[1]; ++a1)
                for (int a2 = 0; a2 < tile_[2]; ++a2, ++i) {
                  const Extent3 at = {origin[0] + a0, origin[1] + a1, origin[2] + a2};
                  if (at[0] >= v.out[0] || at[1] >= v.out[1] || at[2] >= v.out[2]) continue;
                  float& target = image[at[0] * v.ys[2] + at[1] * v.ys[3] + at[2] * v.ys[4]];
                  target = beta == 0 ? alpha * out[i] : alpha * out[i] + beta * target;
                }
          }
        });
  }

  int m_, rank_, alpha_ = 0;
  std::int64_t points_ = 1;
  int tile_[3], span_[3];
  Matrix at_, g_, bt_, identity_;
  const Matrix* at_d_[3];
  const Matrix* g_d_[3];
  const Matrix* bt_d_[3];
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
  static const WinogradNd& transforms(int rank) {
    static const WinogradNd one(kM, 1), three(kM, 3);
    return rank == 3 ? three : one;
  }

  static ForwardView view(const KernelKey& kernel, const GeometryNd& g, const Tensors& t) {
    const float* w = static_cast<const float*>(t.w);
    if (kernel.operation == Operation::kForward)
      return {g.n,
              g.groups,
              g.cg,
              g.kg,
              g.in,
              g.out,
              g.pad,
              static_cast<const float*>(t.x),
              g.xs,
              static_cast<float*>(t.y),
              g.ys,
              [&g, w](std::int64_t k, std::int64_t c, const Extent3& f) {
                return w[g.w_at(k, c % g.cg, f)];
              }};
    Extent3 pad = {0, 0, 0};
    for (int d = 3 - g.rank; d < 3; ++d) pad[d] = kR - 1 - g.pad[d];
    return {g.n,
            g.groups,
            g.kg,
            g.cg,
            g.out,
            g.in,
            pad,
            static_cast<const float*>(t.y),
            g.ys,
            static_cast<float*>(t.x),
            g.xs,
            [&g, w](std::int64_t c, std::int64_t k, const Extent3& f) {
              Extent3 rotated = f;
              for (int d = 3 - g.rank; d < 3; ++d) rotated[d] = kR - 1 - f[d];
              return w[g.w_at(k, c % g.cg, rotated)];
            }};
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
