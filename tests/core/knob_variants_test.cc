#include "core/knob_variants.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ucudnn {
namespace {

std::vector<std::string> names(const std::vector<EngineName>& variants) {
  std::vector<std::string> out;
  for (const auto& v : variants) out.push_back(v.to_string());
  return out;
}

// Split-K buffers (12) from 8 halve down to the minimum; the tile knob (2) sizes no workspace
// and keeps its value.
TEST(KnobVariants, LowerOnlyTheKnobsThatSizeTheWorkspace) {
  const auto name = *EngineName::parse("eng7{k2=3,k12=8}");
  const std::vector<KnobRange> ranges = {{2, 0, 5, 1}, {12, 1, 8, 1}};
  EXPECT_EQ(names(smaller_workspace_variants(name, ranges)),
            (std::vector<std::string>{"eng7{k2=3,k12=4}", "eng7{k2=3,k12=2}", "eng7{k2=3,k12=1}"}));
  EXPECT_EQ(names(smaller_workspace_variants(name, ranges, 1)),
            (std::vector<std::string>{"eng7{k2=3,k12=4}", "eng7{k2=3,k12=1}"}))
      << "at most per_knob halvings, and the minimum";
}

TEST(KnobVariants, KeepToTheStrideAndTheMinimum) {
  const auto name = *EngineName::parse("eng3{k17=12}");
  EXPECT_EQ(names(smaller_workspace_variants(name, {{17, 2, 16, 2}})),
            (std::vector<std::string>{"eng3{k17=6}", "eng3{k17=2}"}));
  // A value of 3 with stride 2 from 1: 1 is the only smaller one.
  EXPECT_EQ(names(smaller_workspace_variants(*EngineName::parse("eng3{k17=3}"), {{17, 1, 9, 2}})),
            (std::vector<std::string>{"eng3{k17=1}"}));
}

TEST(KnobVariants, SeveralWorkspaceKnobsAlsoAllAtTheirMinimum) {
  const auto name = *EngineName::parse("eng1{k12=2,k17=4}");
  const std::vector<KnobRange> ranges = {{12, 1, 4, 1}, {17, 1, 4, 1}};
  EXPECT_EQ(names(smaller_workspace_variants(name, ranges)),
            (std::vector<std::string>{"eng1{k12=1,k17=4}", "eng1{k12=2,k17=2}", "eng1{k12=2,k17=1}",
                                      "eng1{k12=1,k17=1}"}));
}

TEST(KnobVariants, NoneWithoutAWorkspaceKnobAboveItsMinimumOrItsRange) {
  EXPECT_TRUE(smaller_workspace_variants(*EngineName::parse("eng5"), {{12, 1, 4, 1}}).empty());
  EXPECT_TRUE(smaller_workspace_variants(*EngineName::parse("eng5{k2=1}"), {{2, 0, 4, 1}}).empty());
  EXPECT_TRUE(
      smaller_workspace_variants(*EngineName::parse("eng5{k12=1}"), {{12, 1, 4, 1}}).empty())
      << "at its minimum already";
  EXPECT_TRUE(smaller_workspace_variants(*EngineName::parse("eng5{k12=4}"), {}).empty())
      << "a range cuDNN did not say";
  EXPECT_TRUE(
      smaller_workspace_variants(*EngineName::parse("eng5{k12=4}"), {{12, 4, 8, 0}}).empty())
      << "a zero stride reads as one; nothing under the minimum";
}

}  // namespace
}  // namespace ucudnn
