#include "core/batch_size_policy.h"

#include <gtest/gtest.h>

namespace ucudnn {
namespace {

TEST(BatchSizePolicy, ParsesCaseInsensitively) {
  EXPECT_EQ(*parse_batch_size_policy("all"), BatchSizePolicy::kAll);
  EXPECT_EQ(*parse_batch_size_policy("ALL"), BatchSizePolicy::kAll);
  EXPECT_EQ(*parse_batch_size_policy("powerOfTwo"), BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(*parse_batch_size_policy("poweroftwo"), BatchSizePolicy::kPowerOfTwo);
  EXPECT_EQ(*parse_batch_size_policy("Undivided"), BatchSizePolicy::kUndivided);
}

TEST(BatchSizePolicy, ErrorNamesValidValues) {
  auto parsed = parse_batch_size_policy("half");
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().find("'half'"), std::string::npos);
  EXPECT_NE(parsed.error().find("all, powerOfTwo, undivided"), std::string::npos);
}

TEST(BatchSizePolicy, Sizes) {
  using V = std::vector<std::int64_t>;
  EXPECT_EQ(micro_batch_sizes(BatchSizePolicy::kAll, 4), (V{1, 2, 3, 4}));
  EXPECT_EQ(micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 256),
            (V{1, 2, 4, 8, 16, 32, 64, 128, 256}));
  EXPECT_EQ(micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 100), (V{1, 2, 4, 8, 16, 32, 64, 100}));
  EXPECT_EQ(micro_batch_sizes(BatchSizePolicy::kPowerOfTwo, 1), (V{1}));
  EXPECT_EQ(micro_batch_sizes(BatchSizePolicy::kUndivided, 256), (V{256}));
  EXPECT_TRUE(micro_batch_sizes(BatchSizePolicy::kAll, 0).empty());
}

}  // namespace
}  // namespace ucudnn
