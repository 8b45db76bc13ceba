#include "core/reduction_precision.h"

#include <gtest/gtest.h>

#include "core/micro_table.h"
#include "core/plan_validation.h"

namespace ucudnn {
namespace {

KernelKey kernel(Operation operation, DataType data, DataType compute, MathType math) {
  ConvolutionProblem p;
  p.x = TensorShape::packed_channels_last({8, 16, 12, 12});
  p.w = TensorShape::packed_channels_last({32, 16, 3, 3});
  p.y = TensorShape::packed_channels_last({8, 32, 10, 10});
  p.padding = {0, 0};
  p.stride = {1, 1};
  p.dilation = {1, 1};
  p.data_type = data;
  p.compute_type = compute;
  p.math_type = math;
  return {operation, p};
}

TEST(ReductionPrecision, OnlyBackwardFilterOfSixteenBitDataComputedWiderIsKeptWhole) {
  using enum DataType;
  for (MathType math :
       {MathType::kDefault, MathType::kTensorOp, MathType::kFma, MathType::kTensorOpDownConvert}) {
    EXPECT_TRUE(
        splitting_reduces_precision(kernel(Operation::kBackwardFilter, kBFloat16, kFloat, math)));
    EXPECT_TRUE(
        splitting_reduces_precision(kernel(Operation::kBackwardFilter, kHalf, kFloat, math)));
    // Half computed in half: the application's own reduction is already in half.
    EXPECT_FALSE(
        splitting_reduces_precision(kernel(Operation::kBackwardFilter, kHalf, kHalf, math)));
    EXPECT_FALSE(
        splitting_reduces_precision(kernel(Operation::kBackwardFilter, kFloat, kFloat, math)));
    EXPECT_FALSE(
        splitting_reduces_precision(kernel(Operation::kBackwardFilter, kDouble, kDouble, math)));
    for (Operation op : {Operation::kForward, Operation::kBackwardData})
      EXPECT_FALSE(splitting_reduces_precision(kernel(op, kBFloat16, kFloat, math)));
  }
  // Where the application allows reductions in reduced precision (with down-conversion, or
  // alone), reductions in 16 bits are allowed; down-conversion alone allows none.
  EXPECT_FALSE(splitting_reduces_precision(
      kernel(Operation::kBackwardFilter, kBFloat16, kFloat, MathType::kTensorOpAllowConversion)));
  EXPECT_FALSE(splitting_reduces_precision(
      kernel(Operation::kBackwardFilter, kBFloat16, kFloat, MathType::kTensorOpReducedPrecision)));
}

TEST(ReductionPrecision, EachMathTypeAllowsItsOwnConversions) {
  using enum MathType;
  for (MathType math : {kDefault, kTensorOp, kFma}) {
    EXPECT_FALSE(allows_down_conversion(math)) << name_of(math);
    EXPECT_FALSE(allows_reduced_precision_reduction(math)) << name_of(math);
  }
  EXPECT_TRUE(allows_down_conversion(kTensorOpAllowConversion));
  EXPECT_TRUE(allows_reduced_precision_reduction(kTensorOpAllowConversion));
  EXPECT_TRUE(allows_down_conversion(kTensorOpDownConvert));
  EXPECT_FALSE(allows_reduced_precision_reduction(kTensorOpDownConvert));
  EXPECT_FALSE(allows_down_conversion(kTensorOpReducedPrecision));
  EXPECT_TRUE(allows_reduced_precision_reduction(kTensorOpReducedPrecision));
  // Their names are part of stored kernel keys.
  EXPECT_EQ(name_of(kTensorOpDownConvert), "TENSOR_OP_DOWN_CONVERT");
  EXPECT_EQ(name_of(kTensorOpReducedPrecision), "TENSOR_OP_REDUCED_PRECISION_REDUCTION");
}

// Measures every algorithm at every size at a time that falls with the micro-batch count, so
// that a table with sizes below the batch always offers a split.
class CountingBenchmarker : public Benchmarker {
 public:
  std::string backend_name() const override { return "cudnn"; }
  DeviceFingerprint fingerprint() const override { return {}; }
  std::vector<std::string> algorithms(const KernelKey&) override { return {"eng0"}; }
  std::optional<Measurement> benchmark(const KernelKey&, const std::string&,
                                       std::int64_t micro_batch) override {
    sizes.push_back(micro_batch);
    return Measurement{0.1 * static_cast<double>(micro_batch), 0, 0, 0, 1};
  }
  std::vector<std::int64_t> sizes;
};

TEST(ReductionPrecision, TheTableOfAKernelKeptWholeHasOnlyTheBatch) {
  const KernelKey whole =
      kernel(Operation::kBackwardFilter, DataType::kBFloat16, DataType::kFloat, MathType::kFma);
  CountingBenchmarker measured;
  const MicroTable table = measure_micro_table(measured, whole, BatchSizePolicy::kAll, 1 << 20);
  EXPECT_EQ(table.sizes, std::vector<std::int64_t>{8});
  EXPECT_EQ(measured.sizes, std::vector<std::int64_t>{8});
  EXPECT_EQ(policy_for(whole, BatchSizePolicy::kPowerOfTwo), BatchSizePolicy::kUndivided);

  const KernelKey allowed = kernel(Operation::kBackwardFilter, DataType::kBFloat16,
                                   DataType::kFloat, MathType::kTensorOpAllowConversion);
  CountingBenchmarker all;
  EXPECT_EQ(measure_micro_table(all, allowed, BatchSizePolicy::kPowerOfTwo, 1 << 20).sizes,
            (std::vector<std::int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(policy_for(allowed, BatchSizePolicy::kAll), BatchSizePolicy::kAll);
}

TEST(ReductionPrecision, AStoredSplitOfAKernelKeptWholeIsInvalid) {
  const KernelKey whole =
      kernel(Operation::kBackwardFilter, DataType::kBFloat16, DataType::kFloat, MathType::kFma);
  const WorkspaceQuery none = [](const KernelKey&, const std::string&) {
    return std::optional<std::uint64_t>(0);
  };
  const Configuration split{{{"cudnn", "eng0", 4, 1, 0}, {"cudnn", "eng0", 4, 1, 0}}};
  const auto error = plan_validation_error(whole, split, "cudnn", 0, none);
  ASSERT_TRUE(error);
  EXPECT_NE(error->find("2 micro-batches would sum dw in its 16-bit type"), std::string::npos)
      << *error;
  const Configuration undivided{{{"cudnn", "eng0", 8, 1, 0}}};
  EXPECT_FALSE(plan_validation_error(whole, undivided, "cudnn", 0, none));
  // The same split of a float kernel is valid.
  const KernelKey single =
      kernel(Operation::kBackwardFilter, DataType::kFloat, DataType::kFloat, MathType::kFma);
  EXPECT_FALSE(plan_validation_error(single, split, "cudnn", 0, none));
}

}  // namespace
}  // namespace ucudnn
