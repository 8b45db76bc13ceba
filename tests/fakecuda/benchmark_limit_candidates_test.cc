// UCUDNN_BENCHMARK_LIMIT on the doubles' graph API (GpuBenchmarkOptions::benchmark_limit): of
// the configurations the heuristics offer whose workspace at the full batch fits the limit, the
// first N in the heuristics' order are candidates; those over the limit stay (a micro-batch may
// run them), and so does the application's own, whatever its rank. On an H200, measuring every
// configuration at ResNet-50's full batch was what made ucudnn's first run 3x PyTorch's own
// autotuning, which times the first 10.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/algorithm_exclusion.h"
#include "core/engine_name.h"
#include "cudnn/convolution_graph.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "cudnn/engine_configurations.h"
#include "cudnn/heuristics_cache.h"
#include "cudnn/measuring_account.h"
#include "support/scoped_environment.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::Handle;

cudnn::CudnnBenchmarker device_with(const Handle& handle, cudnn::GpuBenchmarkOptions options) {
  return cudnn::CudnnBenchmarker(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                 DeviceFingerprint{}, std::move(options));
}

struct Offered {
  std::vector<std::string> names;                  // every candidate, in the heuristics' order
  std::map<std::string, std::uint64_t> workspace;  // each one's at the full batch, as they say
};

Offered offered(const Handle& handle, const KernelKey& kernel, bool deterministic_only = false) {
  cudnn::GpuBenchmarkOptions every;
  every.deterministic_only = deterministic_only;
  Offered o;
  o.names = device_with(handle, every).algorithms(kernel);
  const cudnn::ConvolutionGraph graph(handle, kernel.operation, kernel.problem, 1, 0);
  for (const auto& c : cudnn::engine_configurations(graph)) {
    EXPECT_TRUE(c.workspace_bytes) << c.name.to_string() << ": the heuristics say it";
    o.workspace[c.name.to_string()] = c.workspace_bytes.value_or(0);
  }
  for (const auto& name : o.names) EXPECT_EQ(o.workspace.count(name), 1u) << name;
  return o;
}

// A limit that some of `o` fit and some do not: the largest it can be with at least `fitting`
// of them within it.
std::uint64_t limit_fitting(const Offered& o, std::size_t fitting) {
  std::vector<std::uint64_t> sizes;
  for (const auto& name : o.names) sizes.push_back(o.workspace.at(name));
  std::sort(sizes.begin(), sizes.end());
  return sizes.at(fitting - 1);
}

// `o`'s names in order, but of those within `limit` only the first `n`.
std::vector<std::string> first_fitting(const Offered& o, std::uint64_t limit, std::size_t n) {
  std::vector<std::string> kept;
  std::size_t fitting = 0;
  for (const auto& name : o.names) {
    if (o.workspace.at(name) <= limit && fitting++ >= n) continue;
    kept.push_back(name);
  }
  return kept;
}

// A benchmarker under `options` lists `names` for `kernel`, and says `left_out` were left out.
void expect_listed(const Handle& handle, const KernelKey& kernel,
                   const cudnn::GpuBenchmarkOptions& options, const std::vector<std::string>& names,
                   std::size_t left_out) {
  auto device = device_with(handle, options);
  EXPECT_EQ(device.algorithms(kernel), names);
  EXPECT_EQ(device.left_out_by_benchmark_limit(kernel), left_out);
}

KernelKey kernel_of(Operation operation) {
  KernelKey kernel{operation, make_conv2d_problem({8, 8, 16, 16, 8, 3, 3, 1, 1})};
  kernel.problem.math_type = MathType::kTensorOp;
  return kernel;
}

// `check(kernel, all)` for a kernel of each operation, with what its heuristics offer.
template <typename Check>
void for_each_operation(const Handle& handle, Check check) {
  for (const auto operation :
       {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
    const KernelKey kernel = kernel_of(operation);
    SCOPED_TRACE(kernel.to_string());
    check(kernel, offered(handle, kernel));
  }
}

TEST(BenchmarkLimitCandidates, TheHeuristicsFirstWithinTheLimitAndEveryOneOverIt) {
  Handle handle;
  for_each_operation(handle, [&](const KernelKey& kernel, const Offered& all) {
    ASSERT_GE(all.names.size(), 4u);
    const std::uint64_t limit = limit_fitting(all, all.names.size() - 1);
    const auto fits = [&](const std::string& name) { return all.workspace.at(name) <= limit; };
    const auto within =
        static_cast<std::size_t>(std::count_if(all.names.begin(), all.names.end(), fits));
    ASSERT_GE(within, 3u);
    ASSERT_LT(within, all.names.size()) << "one over the limit, to show it stays";

    cudnn::GpuBenchmarkOptions options;
    options.workspace_limit = limit;
    options.benchmark_limit = 2;
    auto limited = device_with(handle, options);
    const auto names = limited.algorithms(kernel);
    EXPECT_EQ(names, first_fitting(all, limit, 2));
    EXPECT_EQ(std::count_if(names.begin(), names.end(), fits), 2);
    EXPECT_EQ(limited.left_out_by_benchmark_limit(kernel), within - 2);
    for (const auto& name : all.names) {
      if (fits(name)) continue;
      EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
    }

    // Every one where the limit is 0, or not less than what fits.
    options.benchmark_limit = 0;
    EXPECT_EQ(device_with(handle, options).algorithms(kernel), all.names);
    options.benchmark_limit = within;
    auto enough = device_with(handle, options);
    EXPECT_EQ(enough.algorithms(kernel), all.names);
    EXPECT_EQ(enough.left_out_by_benchmark_limit(kernel), 0u);
  });
}

// A cuDNN before 9.2 cannot say a configuration's workspace (no
// CUDNN_ATTR_ENGINECFG_WORKSPACE_SIZE): its plan at the full batch says it, so that the places go
// to the first that fit, as where cuDNN says it (read as 0, every one took a place and those that
// fit after them were left out); and that plan is the one measuring times there, so each
// configuration is finalized once at the full batch.
TEST(BenchmarkLimitCandidates, WhereCudnnCannotSayAWorkspaceThePlanSaysIt) {
  Handle handle;
  for_each_operation(handle, [&](const KernelKey& kernel, const Offered& all) {
    const std::uint64_t limit = limit_fitting(all, 2);
    const auto kept = first_fitting(all, limit, 2);
    // One over the limit ahead of the second that fits: read as fitting, it would take a place.
    const auto second = std::find(all.names.begin(), all.names.end(), kept.back());
    ASSERT_TRUE(std::any_of(all.names.begin(), second, [&](const std::string& name) {
      return all.workspace.at(name) > limit;
    })) << "the heuristics' order puts none over the limit before the second that fits";

    const ucudnn::testing::ScopedEnvironment unanswered(
        "FAKECUDA_CONFIGURATION_WORKSPACE_UNANSWERED", "1");
    const cudnn::ConvolutionGraph graph(handle, kernel.operation, kernel.problem, 1, 0);
    for (const auto& c : cudnn::engine_configurations(graph))
      EXPECT_FALSE(c.workspace_bytes) << c.name.to_string() << ": the double says it";

    cudnn::GpuBenchmarkOptions options;
    options.workspace_limit = limit;
    options.benchmark_limit = 2;
    cudnn::HeuristicsCache heuristics;
    options.heuristics = &heuristics;
    const auto finalized = [] {
      const auto account = cudnn::measuring_account();
      return account.plans + account.outside_plans;
    };
    const std::uint64_t before = finalized();
    auto device = device_with(handle, options);
    const auto names = device.algorithms(kernel);
    EXPECT_EQ(names, kept);
    EXPECT_EQ(device.left_out_by_benchmark_limit(kernel), all.names.size() - names.size());
    EXPECT_EQ(finalized() - before, all.names.size()) << "one plan sizes each configuration";
    for (const auto& name : names) {
      if (all.workspace.at(name) <= limit)
        EXPECT_TRUE(device.benchmark(kernel, name, kernel.problem.batch())) << name;
      else
        EXPECT_THROW(device.benchmark(kernel, name, kernel.problem.batch()), WorkspaceOverLimit)
            << name;
    }
    EXPECT_EQ(finalized() - before, all.names.size())
        << "measuring at the full batch times the plans that sized them";
    // Another benchmarker of the device reads the sizes the first found.
    EXPECT_EQ(device_with(handle, options).algorithms(kernel), kept);
    EXPECT_EQ(finalized() - before, all.names.size());
  });
}

TEST(BenchmarkLimitCandidates, TheApplicationsConfigurationJoinsWhateverItsRank) {
  Handle handle;
  const KernelKey kernel = kernel_of(Operation::kForward);
  const Offered all = offered(handle, kernel);
  const std::uint64_t limit = limit_fitting(all, all.names.size());
  cudnn::GpuBenchmarkOptions options;
  options.workspace_limit = limit;
  options.benchmark_limit = 1;
  const std::string last = all.names.back();
  ASSERT_NE(all.names.front(), last);
  options.application_engines = {{*EngineName::parse(last), {}, all.workspace.at(last)}};
  // The application's is not counted as left out.
  expect_listed(handle, kernel, options, {all.names.front(), last}, all.names.size() - 2);
}

// An excluded configuration stays listed, for the exclusion to take out and account (an entry
// that seems to exclude nothing is reported as mistyped), but does not take a place.
TEST(BenchmarkLimitCandidates, AnExcludedConfigurationTakesNoPlace) {
  Handle handle;
  const KernelKey kernel = kernel_of(Operation::kForward);
  const Offered all = offered(handle, kernel);
  ASSERT_GE(all.names.size(), 3u);
  const auto exclusion = AlgorithmExclusion::parse("cudnn:" + all.names.front());
  ASSERT_TRUE(exclusion) << exclusion.error();
  cudnn::GpuBenchmarkOptions options;
  options.benchmark_limit = 1;
  options.excluded = &*exclusion;
  // The excluded one is not counted as left out.
  expect_listed(handle, kernel, options, {all.names[0], all.names[1]}, all.names.size() - 2);
}

// A configuration the kernel may not run (here: nondeterministic, where it must run
// deterministically) is no candidate, and takes no place either.
TEST(BenchmarkLimitCandidates, AConfigurationTheKernelMayNotRunTakesNoPlace) {
  Handle handle;
  const KernelKey kernel = kernel_of(Operation::kBackwardData);
  const Offered any = offered(handle, kernel);
  const Offered deterministic = offered(handle, kernel, true);
  // The first nondeterministic one, at `place` among all: with one more place than that, the
  // deterministic ones take them all.
  std::size_t place = 0;
  while (place < deterministic.names.size() && any.names.at(place) == deterministic.names.at(place))
    ++place;
  ASSERT_LT(place + 1, deterministic.names.size()) << "one nondeterministic, then two more";
  cudnn::GpuBenchmarkOptions options;
  options.deterministic_only = true;
  options.benchmark_limit = place + 1;
  const auto first = deterministic.names.begin() + static_cast<std::ptrdiff_t>(place) + 1;
  expect_listed(handle, kernel, options, {deterministic.names.begin(), first},
                deterministic.names.size() - place - 1);
}

}  // namespace
}  // namespace ucudnn::fakecuda
