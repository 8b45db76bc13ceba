// Knob variants on the doubles' graph API (core/knob_variants.h): where cuDNN's heuristics
// choose a split-K engine's knobs for speed alone (FAKECUDA_HEURISTICS_FASTEST_SPLIT=1: each
// knob engine offered with its most split-K buffers, whose workspace is that many copies of the
// output), a limit under that workspace leaves the engine out, though the same engine with
// fewer buffers fits and is faster than everything else that does. UCUDNN_KNOB_VARIANTS makes
// those values candidates, from the ranges cuDNN reads back for the engine's knobs.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/engine_name.h"
#include "cost_model.h"
#include "cudnn/cuda_runtime.h"
#include "cudnn/cudnn_api.h"
#include "cudnn/cudnn_benchmarker.h"
#include "support/fakecuda_trace.h"
#include "support/scoped_environment.h"
#include "support/temp_folder.h"
#include "test_problem.h"

namespace ucudnn::fakecuda {
namespace {

using testing::Handle;

struct Measured {
  std::string name;
  Measurement m;
};

// Every candidate of `kernel` measured at the full batch.
std::vector<Measured> measure_all(cudnn::CudnnBenchmarker& device, const KernelKey& kernel) {
  std::vector<Measured> all;
  for (const auto& name : device.algorithms(kernel))
    if (const auto m = device.benchmark(kernel, name, kernel.problem.batch()))
      all.push_back({name, *m});
  return all;
}

// The fastest of `all` within `limit`, or nullptr.
const Measured* fastest_within(const std::vector<Measured>& all, std::uint64_t limit) {
  const Measured* best = nullptr;
  for (const auto& c : all)
    if (c.m.workspace_bytes <= limit && (!best || c.m.time_ms < best->m.time_ms)) best = &c;
  return best;
}

TEST(KnobVariantCandidates, AnEngineOverTheLimitOffersItsFewerBuffersAndOneOfThemWins) {
  const ucudnn::testing::ScopedEnvironment fastest("FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1");
  Handle handle;
  KernelKey kernel{Operation::kBackwardFilter, make_conv2d_problem({8, 8, 16, 16, 8, 3, 3, 1, 1})};
  kernel.problem.math_type = MathType::kTensorOp;
  auto benchmarker = [&](std::optional<std::uint64_t> over) {
    cudnn::GpuBenchmarkOptions options;
    options.knob_variants_over = over;
    return cudnn::CudnnBenchmarker(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                   DeviceFingerprint{}, options);
  };
  auto plain = benchmarker(std::nullopt);
  const auto offered = measure_all(plain, kernel);
  std::map<std::int64_t, std::uint64_t> least_split_workspace;  // by knob engine
  for (const auto& c : offered) {
    const auto name = EngineName::parse(c.name);
    ASSERT_TRUE(name) << c.name;
    if (has_knobs(kernel.operation, static_cast<int>(name->engine))) {
      EXPECT_EQ(split_of(*name), 4) << c.name << ": the heuristics offer the fastest split alone";
      least_split_workspace[name->engine] =
          model_engine(kernel, static_cast<int>(name->engine), 1).workspace_bytes;
    }
  }
  ASSERT_GE(least_split_workspace.size(), 2u) << "the double has two knob engines for dw";
  // A limit that the knob engines fit only with one buffer.
  const std::uint64_t limit =
      std::max_element(least_split_workspace.begin(), least_split_workspace.end(),
                       [](const auto& a, const auto& b) { return a.second < b.second; })
          ->second;
  auto with = benchmarker(limit);
  const auto all = measure_all(with, kernel);
  std::vector<std::string> variants;
  for (const auto& c : all) {
    const auto name = EngineName::parse(c.name);
    ASSERT_TRUE(name);
    const int algorithm = static_cast<int>(name->engine);
    const std::int64_t split = split_of(*name);
    const Modeled model = model_engine(kernel, algorithm, split);
    EXPECT_EQ(c.m.workspace_bytes, model.workspace_bytes) << c.name;
    EXPECT_FLOAT_EQ(static_cast<float>(c.m.time_ms), static_cast<float>(model.time_ms)) << c.name;
    if (has_knobs(kernel.operation, algorithm) && split < 4) variants.push_back(c.name);
  }
  // Halving 4 buffers: 2 and 1 of each knob engine (3, which the double refuses, never tried).
  std::sort(variants.begin(), variants.end());
  std::vector<std::string> expected;
  for (const auto& [engine, bytes] : least_split_workspace)
    for (const std::int64_t split : {1, 2})
      expected.push_back(
          engine_configuration_name(kernel.operation, static_cast<int>(engine), split));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(variants, expected);

  const Measured* before = fastest_within(offered, limit);
  const Measured* after = fastest_within(all, limit);
  ASSERT_TRUE(before);
  ASSERT_TRUE(after);
  EXPECT_NE(std::find(variants.begin(), variants.end(), after->name), variants.end())
      << "the fastest within the limit is a variant: " << after->name;
  EXPECT_LT(after->m.time_ms, before->m.time_ms / 1.2)
      << after->name << " against " << before->name << ", the best the heuristics' choices give";

  // Where every configuration fits, none offers variants.
  auto roomy = benchmarker(std::uint64_t{1} << 40);
  EXPECT_EQ(roomy.algorithms(kernel), plain.algorithms(kernel));
}

// cuDNN answers a knob-info read with a descriptor per knob type: asked only for a configuration
// whose variants are wanted, never where the setting is off or every configuration fits.
TEST(KnobVariantCandidates, KnobRangesAreReadOnlyForConfigurationsOverTheLimit) {
  const ucudnn::testing::ScopedEnvironment fastest("FAKECUDA_HEURISTICS_FASTEST_SPLIT", "1");
  const ucudnn::testing::TempFolder folder("knob-info");
  const std::string trace = folder.file("trace");
  const ucudnn::testing::ScopedEnvironment traced("FAKECUDA_TRACE", trace.c_str());
  Handle handle;
  KernelKey kernel{Operation::kBackwardFilter, make_conv2d_problem({8, 8, 16, 16, 8, 3, 3, 1, 1})};
  kernel.problem.math_type = MathType::kTensorOp;
  // The knob-info reads and the configurations offered, of a fresh benchmarker's candidates.
  auto reads_for = [&](std::optional<std::uint64_t> over, std::size_t* names = nullptr) {
    cudnn::GpuBenchmarkOptions options;
    options.knob_variants_over = over;
    cudnn::CudnnBenchmarker device(cudnn::cudnn_api(), cudnn::cuda_runtime(), handle,
                                   DeviceFingerprint{}, options);
    const std::size_t from = ucudnn::testing::trace_size(trace.c_str());
    const auto candidates = device.algorithms(kernel);
    if (names) *names = candidates.size();
    int reads = 0;
    for (const auto& line :
         ucudnn::testing::trace_lines(from, ucudnn::testing::kTraceEnd, trace.c_str()))
      reads += line.rfind("backend-knob-info ", 0) == 0;
    return reads;
  };
  std::size_t offered = 0, with_variants = 0;
  EXPECT_EQ(reads_for(std::nullopt, &offered), 0) << "the setting off";
  EXPECT_EQ(reads_for(std::uint64_t{1} << 40), 0) << "every configuration fits";
  // A limit of one byte: each split-K configuration is over it (the double's two for dw).
  EXPECT_EQ(reads_for(std::uint64_t{1}, &with_variants), 2);
  EXPECT_GT(with_variants, offered);
}

}  // namespace
}  // namespace ucudnn::fakecuda
