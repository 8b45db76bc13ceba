// Mixed-precision training's convolutions under the shim, as most GPU training runs them
// (autocast to bfloat16 or half, channels_last): examples/graph_conv --data-type bf16|half
// --channels-last on the cuDNN/CUDA test doubles, which store 16-bit tensors and compute in
// float. Every kernel is planned. Forward and BackwardData plans are split where the limit
// makes that pay, and their results are the undivided ones bit for bit (each output element
// comes from one micro-batch). BackwardFilter stays undivided: its micro-batches would sum dw
// in 16 bits, a reduction in reduced precision the application's engines do not make
// (core/reduction_precision.h). The same through the legacy API (examples/conv_network), where
// the convolution's math type may allow conversions, and BackwardFilter then splits too.
#include <gtest/gtest.h>

#include <cstring>
#include <ostream>
#include <set>
#include <string>

#include "example_program.h"
#include "graph_api_harness.h"
#include "reduced_precision.h"

namespace ucudnn {
namespace {

struct Precision {
  const char* option;  // graph_conv's --data-type
  DataType type;
};

void PrintTo(const Precision& precision, std::ostream* out) {
  *out << precision.option;
}

class MixedPrecision : public GraphApi, public ::testing::WithParamInterface<Precision> {
 protected:
  // Whether `value` is exactly a value of the parameter's 16-bit type.
  static bool representable(float value) {
    if (GetParam().type == DataType::kBFloat16) {
      std::uint32_t bits;
      std::memcpy(&bits, &value, sizeof bits);
      return (bits & 0xFFFF) == 0;
    }
    return cpu::to_float(cpu::to_half(value)) == value;
  }
};

// The shim's line at exit (`err`) counts every distinct kernel of `kernels` as planned.
void expect_every_kernel_planned(const std::string& err, const std::vector<KernelKey>& kernels) {
  std::set<std::string> distinct;
  for (const auto& kernel : kernels) distinct.insert(kernel.to_string());
  const auto at = err.find("GPU 0: ");
  ASSERT_NE(at, std::string::npos) << err;
  int planned = 0;
  ASSERT_EQ(std::sscanf(err.c_str() + at, "GPU 0: %d kernels planned", &planned), 1);
  EXPECT_EQ(planned, static_cast<int>(distinct.size()));
}

TEST_P(MixedPrecision, EveryKernelIsPlannedAndSplitsKeepTheResultsBitForBit) {
  const std::vector<std::string> args = {"--data-type", GetParam().option, "--channels-last",
                                         "--filter-beta", "0.25"};
  const Environment tight = {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(kTightLimit)},
                             {"UCUDNN_LOG_LEVEL", "info"}};
  const ProgramRun without = run(concat(args, {"--iterations", "2"}), {}, false);
  const ProgramRun once = run(concat(args, {"--iterations", "1"}), tight, true);
  const ProgramRun twice = run(concat(args, {"--iterations", "2"}), tight, true);

  // The doubles computed in the 16-bit type, and the shim changed no bit of any result.
  ASSERT_EQ(without.tensors.size(), 3u * kLayers);
  ASSERT_EQ(twice.tensors.size(), without.tensors.size());
  for (std::size_t t = 0; t < without.tensors.size(); ++t) {
    const auto& expected = without.tensors[t].values;
    const auto& actual = twice.tensors[t].values;
    ASSERT_EQ(actual.size(), expected.size());
    std::size_t different = 0, wide = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      different += std::memcmp(&expected[i], &actual[i], sizeof(float)) != 0;
      wide += !representable(expected[i]);
    }
    EXPECT_EQ(different, 0u) << without.tensors[t].name << " of " << expected.size();
    EXPECT_EQ(wide, 0u) << without.tensors[t].name << ": values no " << GetParam().option
                        << " holds";
  }

  // ucudnn ran every plan, and the second iteration's calls are the predicted plans'.
  EXPECT_EQ(application_executes(twice.trace), 0) << twice.trace;
  const auto kernels = example_kernels(kBatch, GetParam().type, true);
  const auto plans = predicted_plans(kTightLimit, 0, kernels);
  EXPECT_EQ(minus(convolutions(twice.trace), convolutions(once.trace)), calls_of(plans));
  int split = 0;
  for (std::size_t k = 0; k < plans.size(); ++k) {
    if (kernels[k].operation == Operation::kBackwardFilter) {
      EXPECT_EQ(plans[k].micro.size(), 1u) << kernels[k].to_string();
    } else {
      split += plans[k].micro.size() > 1;
    }
  }
  EXPECT_GE(split, 2) << "the tight limit should split some Forward and BackwardData kernels";
  // BackwardFilter was not even measured at a micro-batch.
  for (const auto& [op, algorithm, images] : convolutions(twice.trace)) {
    if (op != "BackwardFilter") continue;
    EXPECT_EQ(images, kBatch) << algorithm;
  }

  expect_every_kernel_planned(twice.process.err, kernels);
}

// The legacy API as PyTorch drives it for 16-bit data (cudnn.benchmark off,
// TORCH_CUDNN_V8_API_DISABLED): examples/conv_network with TENSOR_OP math. BackwardFilter is
// planned whole, so every result is the application's own bit for bit; where the application
// allows conversions (TENSOR_OP_MATH_ALLOW_CONVERSION) it may be split like the others.
TEST_P(MixedPrecision, LegacyCallsKeepBackwardFilterWholeUnlessConversionsAreAllowed) {
  const Environment tight = {{"UCUDNN_WORKSPACE_LIMIT", std::to_string(kTightLimit)},
                             {"UCUDNN_LOG_LEVEL", "info"}};
  for (const char* math : {"tensor-op", "allow-conversion"}) {
    SCOPED_TRACE(math);
    const bool conversions = std::string(math) == "allow-conversion";
    const std::vector<std::string> args = {"--data-type", GetParam().option, "--channels-last",
                                           "--math-type", math};
    const auto without = testing::run_example(UCUDNN_EXAMPLE, args, {}, seed_);
    auto with_shim = tight;
    with_shim["LD_PRELOAD"] = UCUDNN_PRELOAD;
    const auto with = testing::run_example(UCUDNN_EXAMPLE, args, with_shim, seed_);
    ASSERT_EQ(without.process.status, 0) << without.process.err;
    ASSERT_EQ(with.process.status, 0) << with.process.err;
    ASSERT_EQ(without.tensors.size(), 3u * kLayers);
    ASSERT_EQ(with.tensors.size(), without.tensors.size());
    for (std::size_t t = 0; t < without.tensors.size(); ++t) {
      const auto& expected = without.tensors[t].values;
      const auto& actual = with.tensors[t].values;
      ASSERT_EQ(actual.size(), expected.size());
      const bool filter = without.tensors[t].name.ends_with(".dw");
      if (conversions && filter) {  // summed in 16 bits per micro-batch: close, not equal
        EXPECT_LT(testing::relative_error(actual, expected), 2e-2) << without.tensors[t].name;
        continue;
      }
      std::size_t different = 0;
      for (std::size_t i = 0; i < expected.size(); ++i)
        different += std::memcmp(&expected[i], &actual[i], sizeof(float)) != 0;
      EXPECT_EQ(different, 0u) << without.tensors[t].name;
    }
    int split_filters = 0, split_others = 0;
    for (const auto& [op, algorithm, images] : convolutions(with.trace))
      (op == "BackwardFilter" ? split_filters : split_others) += images < testing::kExampleBatch;
    EXPECT_GT(split_others, 0) << "the tight limit should split Forward or BackwardData";
    if (conversions) {
      EXPECT_GT(split_filters, 0) << "conversions allowed: BackwardFilter may be split";
    } else {
      EXPECT_EQ(split_filters, 0) << "BackwardFilter was run or measured at a micro-batch";
    }
    expect_every_kernel_planned(with.process.err,
                                example_kernels(testing::kExampleBatch, GetParam().type, true));
  }
}

INSTANTIATE_TEST_SUITE_P(SixteenBitTypes, MixedPrecision,
                         ::testing::Values(Precision{"bf16", DataType::kBFloat16},
                                           Precision{"half", DataType::kHalf}),
                         [](const ::testing::TestParamInfo<Precision>& info) {
                           return std::string(info.param.option);
                         });

}  // namespace
}  // namespace ucudnn
