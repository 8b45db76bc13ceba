#include <gtest/gtest.h>
#include <sanitizer/asan_interface.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <map>
#include <set>

#include "aligned_buffer.h"
#include "conv_cases.h"
#include "host_tensors.h"
#include "plan_executor.h"
#include "reference.h"
#include "solver_registry.h"
#include "support/random_seed.h"
#include "thread_pool.h"

namespace ucudnn::cpu {
namespace {

constexpr Operation kOperations[] = {Operation::kForward, Operation::kBackwardData,
                                     Operation::kBackwardFilter};

// The output tensor of an operation, as (pointer, shape).
std::pair<void*, const TensorShape*> output_of(const KernelKey& kernel, const Tensors& t) {
  switch (kernel.operation) {
    case Operation::kForward:
      return {t.y, &kernel.problem.y};
    case Operation::kBackwardData:
      return {t.x, &kernel.problem.x};
    default:
      return {t.w, &kernel.problem.w};
  }
}

// Fresh inputs; the output poisoned with NaN for beta == 0, random otherwise.
struct Buffers {
  std::vector<float> x, w, y;
  Tensors tensors() { return {x.data(), w.data(), y.data()}; }
};

Buffers make_buffers(const KernelKey& kernel, std::mt19937_64& random, double beta) {
  std::uniform_real_distribution<float> uniform(-1, 1);
  auto fill = [&](const TensorShape& shape) {
    std::vector<float> v(shape.span_elements());
    for (auto& e : v) e = uniform(random);
    return v;
  };
  Buffers b{fill(kernel.problem.x), fill(kernel.problem.w), fill(kernel.problem.y)};
  if (beta == 0) {
    auto [out, shape] = output_of(kernel, b.tensors());
    std::fill_n(static_cast<float*>(out), shape->span_elements(),
                std::numeric_limits<float>::quiet_NaN());
  }
  return b;
}

// The float64 reference on the same float inputs (converted), as doubles.
std::vector<double> reference_output(const KernelKey& kernel, Buffers inputs, Scaling scaling) {
  auto widen = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  std::vector<double> x = widen(inputs.x), w = widen(inputs.w), y = widen(inputs.y);
  KernelKey wide = kernel;
  wide.problem.data_type = wide.problem.compute_type = DataType::kDouble;
  reference_convolution(wide, {x.data(), w.data(), y.data()}, scaling);
  switch (kernel.operation) {
    case Operation::kForward:
      return y;
    case Operation::kBackwardData:
      return x;
    default:
      return w;
  }
}

// What rounding scales with: the reference on the inputs' magnitudes, each output element the
// sum of the magnitudes of the terms it adds up. An output whose terms cancel to near zero (a
// single filter element of BackwardFilter sums a few hundred products) is held to the rounding
// error its terms allow, not to its own small size.
std::vector<double> term_magnitudes(const KernelKey& kernel, Buffers inputs, Scaling scaling) {
  for (auto* tensor : {&inputs.x, &inputs.w, &inputs.y})
    for (auto& e : *tensor) e = std::fabs(e);
  return reference_output(kernel, inputs, {std::fabs(scaling.alpha), std::fabs(scaling.beta)});
}

// Normwise error over the output tensor's logical elements, relative to the terms' magnitudes.
double relative_error(const KernelKey& kernel, const Buffers& got,
                      const std::vector<double>& expected, const std::vector<double>& magnitude) {
  const std::vector<float>& out = kernel.operation == Operation::kForward        ? got.y
                                  : kernel.operation == Operation::kBackwardData ? got.x
                                                                                 : got.w;
  double difference = 0, norm = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isnan(out[i])) return std::numeric_limits<double>::infinity();
    difference += (out[i] - expected[i]) * (out[i] - expected[i]);
    norm += magnitude[i] * magnitude[i];
  }
  return std::sqrt(difference / std::max(norm, 1e-300));
}

// A workspace of exactly the stated size followed by guard bytes that must stay untouched;
// under AddressSanitizer the guard is poisoned too, so an overrun fails at the write.
class GuardedWorkspace {
 public:
  explicit GuardedWorkspace(std::size_t bytes) : bytes_(bytes), storage_(bytes + kGuard) {
    std::fill_n(storage_.data(), storage_.size(), std::byte{0xA5});
    ASAN_POISON_MEMORY_REGION(storage_.data() + bytes_, kGuard);
  }
  ~GuardedWorkspace() { ASAN_UNPOISON_MEMORY_REGION(storage_.data() + bytes_, kGuard); }
  GuardedWorkspace(const GuardedWorkspace&) = delete;
  GuardedWorkspace& operator=(const GuardedWorkspace&) = delete;

  Workspace get() { return {bytes_ ? storage_.data() : nullptr, bytes_}; }
  bool guard_intact() {
    ASAN_UNPOISON_MEMORY_REGION(storage_.data() + bytes_, kGuard);
    bool intact = true;
    for (std::size_t i = bytes_; i < storage_.size(); ++i)
      intact = intact && storage_.data()[i] == std::byte{0xA5};
    ASAN_POISON_MEMORY_REGION(storage_.data() + bytes_, kGuard);
    return intact;
  }

 private:
  static constexpr std::size_t kGuard = 256;
  std::size_t bytes_;
  AlignedBuffer storage_;  // solvers may rely on 64-byte alignment
};

class CpuSolvers : public ::testing::Test {
 protected:
  // Fresh inputs (the output poisoned), the solver in exactly its stated workspace, its
  // output within its stated tolerance of the float64 reference.
  void expect_matches_reference(const Solver& solver, const KernelKey& kernel, Scaling scaling,
                                std::mt19937_64& random) {
    Buffers buffers = make_buffers(kernel, random, scaling.beta);
    const auto expected = reference_output(kernel, buffers, scaling);
    const auto magnitude = term_magnitudes(kernel, buffers, scaling);
    GuardedWorkspace workspace(solver.workspace_bytes(kernel));
    solver.run(kernel, buffers.tensors(), scaling, workspace.get(), pool_);
    EXPECT_LE(relative_error(kernel, buffers, expected, magnitude), solver.tolerance(kernel));
    EXPECT_TRUE(workspace.guard_intact()) << "wrote past its stated workspace";
  }

  ThreadPool pool_{2};
};

TEST(SolverRegistry, HoldsEverySolverOnce) {
  std::set<std::string> names;
  for (const auto* s : all_solvers())
    EXPECT_TRUE(names.insert(std::string(s->name())).second) << s->name();
  for (const char* expected :
       {"DIRECT", "LOWERING_PER_IMAGE", "LOWERING_BATCHED", "LOWERING_PARTITIONED", "ONEDNN_DIRECT",
        "ONEDNN_GEMM", "ONEDNN_WINOGRAD", "ONEDNN_AUTO"}) {
    EXPECT_TRUE(names.count(expected)) << expected;
    ASSERT_NE(find_solver(expected), nullptr);
    EXPECT_EQ(find_solver(expected)->name(), expected);
  }
  EXPECT_EQ(find_solver("NO_SUCH_SOLVER"), nullptr);
}

TEST_F(CpuSolvers, EverySolverMatchesTheReference) {
  testing::SeededRandom random;
  int checked = 0;
  std::map<std::string, int> checked_by;
  for (const auto& conv : testing::conv_cases(random)) {
    for (auto mode : {ConvolutionMode::kCrossCorrelation, ConvolutionMode::kConvolution}) {
      for (auto op : kOperations) {
        KernelKey kernel{op, make_conv2d_problem(conv.shape)};
        kernel.problem.mode = mode;
        for (const auto* solver : all_solvers()) {
          if (!solver->applies(kernel)) continue;
          for (Scaling scaling : {Scaling{1, 0}, Scaling{0.5, 0.25}}) {
            SCOPED_TRACE(conv.name + " " + std::string(name_of(op)) + " " +
                         std::string(name_of(mode)) + " " + std::string(solver->name()) +
                         " alpha " + std::to_string(scaling.alpha) + " beta " +
                         std::to_string(scaling.beta) + " key " + kernel.to_string());
            expect_matches_reference(*solver, kernel, scaling, random.engine());
            ++checked;
            ++checked_by[std::string(solver->name())];
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 200);
  for (const auto* solver : all_solvers()) {
    if (solver->name().ends_with("_ND")) continue;  // the N-d solvers' test is below
    // oneDNN implements Winograd for AVX-512 alone: elsewhere the solver rightly applies to
    // nothing.
    if (solver->name() == "ONEDNN_WINOGRAD" && !__builtin_cpu_supports("avx512f")) {
      EXPECT_EQ(checked_by[std::string(solver->name())], 0);
      std::cout << "[ note     ] ONEDNN_WINOGRAD: oneDNN has no Winograd without AVX-512\n";
      continue;
    }
    EXPECT_GT(checked_by[std::string(solver->name())], 0) << solver->name() << " was never checked";
  }
  for (const auto& [name, count] : checked_by)
    std::cout << "[ checked  ] " << name << ": " << count << " runs\n";
}

// A random convolution of spatial rank `rank`: small sizes, any padding, stride, dilation,
// groups and mode; or with `winograd_shape`, a 3-wide filter, stride and dilation 1.
ConvolutionProblem random_nd_problem(testing::SeededRandom& random, int rank, bool winograd_shape) {
  const std::int64_t groups = random.uniform(1, 2), cg = random.uniform(1, 3),
                     kg = random.uniform(1, 3), batch = random.uniform(1, 3);
  std::vector<std::int64_t> x = {batch, groups * cg}, w = {groups * kg, cg},
                            y = {batch, groups * kg};
  ConvolutionProblem p;
  for (int d = 0; d < rank; ++d) {
    const std::int64_t filter = winograd_shape ? 3 : random.uniform(1, 3),
                       dilation = winograd_shape ? 1 : random.uniform(1, 2),
                       stride = winograd_shape ? 1 : random.uniform(1, 2),
                       pad = random.uniform(0, filter - 1);
    const std::int64_t extent = dilation * (filter - 1) + 1;
    const std::int64_t in =
        random.uniform(std::max<std::int64_t>(1, extent - 2 * pad), rank == 3 ? 6 : 11);
    x.push_back(in);
    w.push_back(filter);
    y.push_back(convolution_output_size(in, filter, pad, stride, dilation));
    p.padding.push_back(pad);
    p.stride.push_back(stride);
    p.dilation.push_back(dilation);
  }
  p.x = TensorShape::packed(x);
  p.w = TensorShape::packed(w);
  p.y = TensorShape::packed(y);
  p.groups = groups;
  p.mode = random.chance(0.5) ? ConvolutionMode::kConvolution : ConvolutionMode::kCrossCorrelation;
  return p;
}

// 1-d and 3-d problems reach the N-d solvers and oneDNN's (the 2-d ones refuse), each within
// its stated tolerance of the float64 reference, every operation, with alpha/beta.
TEST_F(CpuSolvers, NdSolversMatchTheReferenceIn1dAnd3d) {
  testing::SeededRandom random;
  std::map<std::string, int> checked_by;
  for (int trial = 0; trial < 24; ++trial) {
    const int rank = trial % 2 ? 3 : 1;
    const ConvolutionProblem problem = random_nd_problem(random, rank, trial % 4 < 2);
    ASSERT_FALSE(problem.validation_error()) << *problem.validation_error();
    for (auto op : kOperations) {
      const KernelKey kernel{op, problem};
      std::vector<const Solver*> applicable;
      for (const auto* solver : all_solvers())
        if (solver->applies(kernel)) applicable.push_back(solver);
      ASSERT_FALSE(applicable.empty()) << kernel.to_string();
      for (const auto* solver : applicable) {
        for (Scaling scaling : {Scaling{1, 0}, Scaling{0.5, 0.25}}) {
          SCOPED_TRACE(std::string(solver->name()) + " beta " + std::to_string(scaling.beta) + " " +
                       kernel.to_string());
          expect_matches_reference(*solver, kernel, scaling, random.engine());
          ++checked_by[std::string(solver->name())];
        }
      }
    }
  }
  for (const auto* solver : all_solvers()) {
    const std::string name(solver->name());
    if (name.ends_with("_ND") || (name.starts_with("ONEDNN_") && name != "ONEDNN_WINOGRAD")) {
      EXPECT_GT(checked_by[name], 0) << name << " never applied";
    }
  }
  for (const auto& [name, count] : checked_by)
    std::cout << "[ checked  ] " << name << ": " << count << " runs\n";
}

// Problems with more tiles than the N-d Winograd's block (16 MiB of transform-domain data,
// at least 128 tiles) and a last block that ends inside a group of 16 lanes. With 4 channels
// in and out: F(2^3, 3^3) over 9207 tiles in blocks of 8192, F(4^3, 3^3) over 2890 in blocks
// of 2432.
TEST_F(CpuSolvers, NdWinogradAcrossTileBlocks) {
  testing::SeededRandom random;
  const std::pair<const char*, std::vector<std::int64_t>> cases[] = {
      {"WINOGRAD_F2_3_ND", {1, 4, 18, 62, 66}}, {"WINOGRAD_F4_3_ND", {2, 4, 18, 65, 66}}};
  for (const auto& [name, x] : cases) {
    ConvolutionProblem p;
    p.x = TensorShape::packed(x);
    p.w = TensorShape::packed({4, 4, 3, 3, 3});
    p.y = TensorShape::packed(x);
    p.padding = {1, 1, 1};
    p.stride = {1, 1, 1};
    p.dilation = {1, 1, 1};
    for (auto op : {Operation::kForward, Operation::kBackwardData}) {
      const KernelKey kernel{op, p};
      SCOPED_TRACE(std::string(name) + " " + kernel.to_string());
      const Solver* solver = find_solver(name);
      ASSERT_TRUE(solver->applies(kernel));
      expect_matches_reference(*solver, kernel, {0.5, 0.25}, random.engine());
    }
  }
}

TEST_F(CpuSolvers, DirectHandlesChannelsLast) {
  testing::SeededRandom random;
  for (auto op : kOperations) {
    KernelKey kernel{op, make_conv2d_problem({3, 4, 9, 8, 6, 3, 3, 1, 1, 2, 1, 1, 1, 2})};
    kernel.problem.x = TensorShape::packed_channels_last(kernel.problem.x.dims);
    kernel.problem.y = TensorShape::packed_channels_last(kernel.problem.y.dims);
    SCOPED_TRACE(kernel.to_string());
    EXPECT_FALSE(find_solver("LOWERING_BATCHED")->applies(kernel))
        << "lowering needs packed images";
    Buffers buffers = make_buffers(kernel, random.engine(), 0.25);
    const auto expected = reference_output(kernel, buffers, {0.5, 0.25});
    const auto magnitude = term_magnitudes(kernel, buffers, {0.5, 0.25});
    find_solver("DIRECT")->run(kernel, buffers.tensors(), {0.5, 0.25}, {}, pool_);
    EXPECT_LE(relative_error(kernel, buffers, expected, magnitude), 1e-5);
  }
}

TEST_F(CpuSolvers, DirectComputesInDouble) {
  testing::SeededRandom random;
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (auto op : kOperations) {
    KernelKey kernel{
        op, make_conv2d_problem({2, 4, 7, 6, 4, 3, 3, 1, 1, 1, 1, 2, 1, 2}, DataType::kDouble)};
    SCOPED_TRACE(kernel.to_string());
    auto fill = [&](const TensorShape& shape) {
      std::vector<double> v(shape.span_elements());
      for (auto& e : v) e = uniform(random.engine());
      return v;
    };
    std::vector<double> x = fill(kernel.problem.x), w = fill(kernel.problem.w),
                        y = fill(kernel.problem.y);
    std::vector<double> rx = x, rw = w, ry = y;
    find_solver("DIRECT")->run(kernel, {x.data(), w.data(), y.data()}, {0.5, 0.25}, {}, pool_);
    reference_convolution(kernel, {rx.data(), rw.data(), ry.data()}, {0.5, 0.25});
    const auto& got = op == Operation::kForward ? y : op == Operation::kBackwardData ? x : w;
    const auto& want = op == Operation::kForward ? ry : op == Operation::kBackwardData ? rx : rw;
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-12) << "element " << i;
  }
}

TEST_F(CpuSolvers, MicroBatchedRunEqualsUndivided) {
  testing::SeededRandom random;
  for (const auto& conv : testing::conv_cases(random)) {
    for (auto op : kOperations) {
      auto shape = conv.shape;
      shape.batch = random.uniform(3, 7);
      const KernelKey kernel{op, make_conv2d_problem(shape)};
      // A random split, each part with a random applicable solver.
      Configuration plan;
      for (std::int64_t left = shape.batch; left > 0;) {
        const auto b = random.uniform(1, left);
        std::vector<std::string> names;
        for (const auto* s : all_solvers())
          if (s->applies(kernel.with_batch(b))) names.emplace_back(s->name());
        plan.micro.push_back({"cpu",
                              names[static_cast<std::size_t>(
                                  random.uniform(0, static_cast<std::int64_t>(names.size()) - 1))],
                              b, 0, 0});
        left -= b;
      }
      for (Scaling scaling : {Scaling{1, 0}, Scaling{0.5, 0.25}}) {
        SCOPED_TRACE(conv.name + " " + std::string(name_of(op)) + " plan " + plan.to_string() +
                     " beta " + std::to_string(scaling.beta));
        Buffers buffers = make_buffers(kernel, random.engine(), scaling.beta);
        const auto expected = reference_output(kernel, buffers, scaling);
        const auto magnitude = term_magnitudes(kernel, buffers, scaling);
        GuardedWorkspace workspace(configuration_workspace_bytes(kernel, plan));
        run_configuration(kernel, plan, buffers.tensors(), scaling, workspace.get(), pool_);
        EXPECT_LE(relative_error(kernel, buffers, expected, magnitude), 1e-4);
        EXPECT_TRUE(workspace.guard_intact());
      }
    }
  }
}

TEST_F(CpuSolvers, ExecutorRejectsBadConfigurations) {
  const KernelKey kernel{Operation::kForward, make_conv2d_problem({4, 2, 5, 5, 2, 3, 3})};
  Buffers buffers = make_buffers(kernel, *std::make_unique<std::mt19937_64>(1), 0);
  Configuration short_plan{{{"cpu", "DIRECT", 3, 0, 0}}};
  EXPECT_THROW(run_configuration(kernel, short_plan, buffers.tensors(), {}, {}, pool_),
               std::invalid_argument);
  Configuration unknown{{{"cpu", "NO_SUCH_SOLVER", 4, 0, 0}}};
  EXPECT_THROW(run_configuration(kernel, unknown, buffers.tensors(), {}, {}, pool_),
               std::invalid_argument);
  Configuration needs_workspace{{{"cpu", "LOWERING_BATCHED", 4, 0, 0}}};
  EXPECT_THROW(run_configuration(kernel, needs_workspace, buffers.tensors(), {}, {}, pool_),
               std::invalid_argument);
}

}  // namespace
}  // namespace ucudnn::cpu
