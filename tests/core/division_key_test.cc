#include "core/division_key.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "support/random_seed.h"

namespace ucudnn {
namespace {

TEST(DivisionKey, NamesTheSetOfKernelsAndTheirRelativeRunsWhateverTheOrder) {
  testing::SeededRandom random;
  std::vector<DivisionMember> members{
      {"00000000000000aa", 3}, {"00000000000000bb", 6}, {"00000000000000cc", 9}};
  const auto key = division_key(members);
  EXPECT_EQ(key.subject, "network:00000000000000aa*1;00000000000000bb*2;00000000000000cc*3;");
  for (int trial = 0; trial < 20; ++trial) {
    auto shuffled = members;
    std::shuffle(shuffled.begin(), shuffled.end(), random.engine());
    for (auto& m : shuffled) m.runs *= 2;  // an iteration counted twice
    const auto other = division_key(shuffled);
    EXPECT_EQ(other.subject, key.subject);
    for (std::size_t i = 0; i < other.order.size(); ++i)
      EXPECT_EQ(shuffled[other.order[i]].kernel_hash, members[i].kernel_hash);
  }
  EXPECT_NE(
      division_key({{"00000000000000aa", 1}, {"00000000000000bb", 1}, {"00000000000000cc", 3}})
          .subject,
      key.subject);
}

TEST(DivisionKey, ASubjectReadsBackAsItsMembers) {
  const auto key = division_key({{"0000000000000002", 4}, {"0000000000000001", 2}});
  const auto members = parse_division_subject(key.subject);
  ASSERT_TRUE(members);
  EXPECT_EQ(*members,
            (std::vector<DivisionMember>{{"0000000000000001", 1, 0}, {"0000000000000002", 2, 1}}));
  EXPECT_EQ(parse_division_subject("network:"), std::vector<DivisionMember>{});
  for (const char* bad :
       {"conv:abc*1;", "network:abc", "network:abc*;", "network:abc*0;", "network:abc*2x;",
        "network:*2;", "network:abc;def*1;", "network:abc*1@0;", "network:abc*1;def*1@2;",
        "network:abc*1;def*1@;", "network:abc*1;def*1@0;ghi*1@1;"})
    EXPECT_FALSE(parse_division_subject(bad)) << bad;
}

// Kernels of one stream share a segment: the name says which, whatever labels and order the
// members came with, and reads back as the same sharing.
TEST(DivisionKey, MembersSharingASegmentAreNamedByItsFirstListedMember) {
  testing::SeededRandom random;
  const std::vector<DivisionMember> members{{"00000000000000cc", 1, 7},
                                            {"00000000000000aa", 2, 7},
                                            {"00000000000000bb", 1, 3},
                                            {"00000000000000dd", 1, DivisionMember::kOwnSegment},
                                            {"00000000000000ee", 1, 3}};
  const auto key = division_key(members);
  EXPECT_EQ(key.subject,
            "network:00000000000000aa*2;00000000000000bb*1;00000000000000cc*1@0;"
            "00000000000000dd*1;00000000000000ee*1@1;");
  EXPECT_EQ(key.segment_of, (std::vector<std::size_t>{0, 1, 0, 3, 1}));
  for (int trial = 0; trial < 20; ++trial) {
    auto shuffled = members;
    std::shuffle(shuffled.begin(), shuffled.end(), random.engine());
    for (auto& m : shuffled)
      if (m.segment != DivisionMember::kOwnSegment) m.segment += 100;  // other labels
    EXPECT_EQ(division_key(shuffled).subject, key.subject);
  }
  const auto parsed = parse_division_subject(key.subject);
  ASSERT_TRUE(parsed);
  std::vector<std::int64_t> labels;
  for (const auto& m : *parsed) labels.push_back(m.segment);
  EXPECT_EQ(labels, (std::vector<std::int64_t>{0, 1, 0, 3, 1}));
  EXPECT_EQ(division_key(*parsed).subject, key.subject);
}

}  // namespace
}  // namespace ucudnn
