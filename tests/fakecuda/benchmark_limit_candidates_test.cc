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
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
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
  std::map<std::string, std::uint64_t> workspace;  // each one's at the full batch
};

Offered offered(const Handle& handle, const KernelKey& kernel) {
  auto device = device_with(handle, {});
  Offered o;
  o.names = device.algorithms(kernel);
  for (const auto& name : o.names) {
    const auto m = device.benchmark(kernel, name, kernel.problem.batch());
    o.workspace[name] = m ? m->workspace_bytes : 0;
  }
  return o;
}

// A limit that some of `o` fit and some do not: the largest it can be with at least `fitting`
// of them within it.
std::uint64_t limit_fitting(const Offered& o, std::size_t fitting) {
  std::vector<std::uint64_t> sizes;
  for (const auto& [name, bytes] : o.workspace) sizes.push_back(bytes);
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

KernelKey kernel_of(Operation operation) {
  KernelKey kernel{operation, make_conv2d_problem({8, 8, 16, 16, 8, 3, 3, 1, 1})};
  kernel.problem.math_type = MathType::kTensorOp;
  return kernel;
}

TEST(BenchmarkLimitCandidates, TheHeuristicsFirstWithinTheLimitAndEveryOneOverIt) {
  Handle handle;
  for (const auto operation :
       {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter}) {
    const KernelKey kernel = kernel_of(operation);
    SCOPED_TRACE(kernel.to_string());
    const Offered all = offered(handle, kernel);
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
    EXPECT_EQ(limited.beyond_benchmark_limit(kernel), within - 2);
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
    EXPECT_EQ(enough.beyond_benchmark_limit(kernel), 0u);
  }
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
  auto device = device_with(handle, options);
  EXPECT_EQ(device.algorithms(kernel), (std::vector<std::string>{all.names.front(), last}));
  EXPECT_EQ(device.beyond_benchmark_limit(kernel), all.names.size() - 2)
      << "the application's is no longer left out";
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
  auto device = device_with(handle, options);
  EXPECT_EQ(device.algorithms(kernel), (std::vector<std::string>{all.names[0], all.names[1]}));
}

}  // namespace
}  // namespace ucudnn::fakecuda
