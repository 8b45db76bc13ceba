#include "core/kernel_key.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

namespace ucudnn {
namespace {

KernelKey base_key() {
  return KernelKey{Operation::kForward,
                   make_conv2d_problem({32, 16, 28, 28, 32, 3, 3, 1, 1, 1, 1, 1, 1, 2})};
}

TEST(KernelKey, EqualProblemsGiveEqualKeys) {
  EXPECT_EQ(base_key().to_string(), base_key().to_string());
  EXPECT_EQ(base_key().hash(), base_key().hash());
  EXPECT_EQ(base_key().hash_hex().size(), 16u);
}

TEST(KernelKey, IsReadableAndVersioned) {
  const auto text = base_key().to_string();
  EXPECT_EQ(text.rfind("ucudnn-kernel/1 op=Forward", 0), 0u) << text;
  EXPECT_NE(text.find("x=[32,16,28,28]:[12544,784,28,1]"), std::string::npos) << text;
  EXPECT_NE(text.find("groups=2"), std::string::npos) << text;
  EXPECT_NE(text.find("pad=[1,1]"), std::string::npos) << text;
}

TEST(KernelKey, EveryFieldMatters) {
  std::vector<std::pair<const char*, std::function<void(KernelKey&)>>> changes = {
      {"operation", [](KernelKey& k) { k.operation = Operation::kBackwardData; }},
      {"operation2", [](KernelKey& k) { k.operation = Operation::kBackwardFilter; }},
      {"x.dims", [](KernelKey& k) { k.problem.x.dims[2] = 29; }},
      {"x.strides", [](KernelKey& k) { k.problem.x.strides[0] += 1; }},
      {"x batch", [](KernelKey& k) { k.problem.x.dims[0] = 31; }},
      {"w.dims", [](KernelKey& k) { k.problem.w.dims[3] = 5; }},
      {"w.strides",
       [](KernelKey& k) { k.problem.w = TensorShape::packed_channels_last(k.problem.w.dims); }},
      {"y.dims", [](KernelKey& k) { k.problem.y.dims[1] = 64; }},
      {"y.strides",
       [](KernelKey& k) { k.problem.y = TensorShape::packed_channels_last(k.problem.y.dims); }},
      {"padding", [](KernelKey& k) { k.problem.padding[1] = 0; }},
      {"stride", [](KernelKey& k) { k.problem.stride[0] = 2; }},
      {"dilation", [](KernelKey& k) { k.problem.dilation[1] = 2; }},
      {"groups", [](KernelKey& k) { k.problem.groups = 1; }},
      {"mode", [](KernelKey& k) { k.problem.mode = ConvolutionMode::kConvolution; }},
      {"data type", [](KernelKey& k) { k.problem.data_type = DataType::kHalf; }},
      {"compute type", [](KernelKey& k) { k.problem.compute_type = DataType::kDouble; }},
      {"math type", [](KernelKey& k) { k.problem.math_type = MathType::kTensorOp; }},
      {"reorder", [](KernelKey& k) { k.problem.reorder = ReorderType::kNoReorder; }},
      {"rank",
       [](KernelKey& k) {
         k.problem.x.dims.push_back(1);
         k.problem.x.strides.push_back(1);
       }},
  };
  std::set<std::string> texts{base_key().to_string()};
  std::set<std::uint64_t> hashes{base_key().hash()};
  std::set<std::size_t> structural{KernelKeyHash{}(base_key())};
  for (const auto& [field, change] : changes) {
    KernelKey key = base_key();
    change(key);
    EXPECT_FALSE(key == base_key()) << field;
    EXPECT_TRUE(texts.insert(key.to_string()).second) << field << " did not change the key";
    EXPECT_TRUE(hashes.insert(key.hash()).second) << field << " did not change the hash";
    EXPECT_TRUE(structural.insert(KernelKeyHash{}(key)).second)
        << field << " did not change the in-memory hash";
  }
}

TEST(KernelKey, WithBatchKeepsStrides) {
  auto key = base_key();
  key.problem.x = TensorShape::packed_channels_last(key.problem.x.dims);
  const auto micro = key.with_batch(5);
  EXPECT_EQ(micro.problem.x.dims[0], 5);
  EXPECT_EQ(micro.problem.y.dims[0], 5);
  EXPECT_EQ(micro.problem.x.strides, key.problem.x.strides);
  EXPECT_EQ(micro.problem.y.strides, key.problem.y.strides);
  EXPECT_NE(micro.to_string(), key.to_string());
}

TEST(ConvolutionProblem, PackedStrides) {
  EXPECT_EQ(TensorShape::packed({2, 3, 4, 5}).strides, (std::vector<std::int64_t>{60, 20, 5, 1}));
  EXPECT_EQ(TensorShape::packed_channels_last({2, 3, 4, 5}).strides,
            (std::vector<std::int64_t>{60, 1, 15, 3}));
}

TEST(ConvolutionProblem, ValidationNamesTheField) {
  EXPECT_FALSE(base_key().problem.validation_error());
  auto problem = base_key().problem;
  problem.groups = 3;
  ASSERT_TRUE(problem.validation_error());
  EXPECT_NE(problem.validation_error()->find("groups 3"), std::string::npos)
      << *problem.validation_error();
  problem = base_key().problem;
  problem.y.dims[2] = 27;
  ASSERT_TRUE(problem.validation_error());
  EXPECT_NE(problem.validation_error()->find("y.dims"), std::string::npos)
      << *problem.validation_error();
  problem = base_key().problem;
  problem.stride = {1};
  ASSERT_TRUE(problem.validation_error());
  EXPECT_NE(problem.validation_error()->find("stride"), std::string::npos);
  // A filter wider than the padded input, where truncating division would give size 1.
  problem = make_conv2d_problem({1, 1, 2, 2, 1, 3, 3, 0, 0, 2, 2});
  problem.y.dims[2] = problem.y.dims[3] = 1;
  ASSERT_TRUE(problem.validation_error());
  EXPECT_NE(problem.validation_error()->find("larger than the padded input"), std::string::npos)
      << *problem.validation_error();
  problem = base_key().problem;
  problem.x.dims[0] = 0;
  ASSERT_TRUE(problem.validation_error());
  EXPECT_NE(problem.validation_error()->find("x.dims"), std::string::npos);
}

}  // namespace
}  // namespace ucudnn
