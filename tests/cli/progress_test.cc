// bench's progress on stderr: a bar on a terminal, plain lines elsewhere.
#include "progress.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "support/printed_text.h"

namespace ucudnn::cli {
namespace {

TEST(Progress, DurationsReadWell) {
  EXPECT_EQ(format_duration(0.4), "0 s");
  EXPECT_EQ(format_duration(59), "59 s");
  EXPECT_EQ(format_duration(185), "3 min 05 s");
  EXPECT_EQ(format_duration(3720), "1 h 02 min");
}

TEST(Progress, PlainLinesWhenNotATerminal) {
  const std::string lines = testing::printed_text([](std::FILE* out) {
    Progress progress(out, false, 2, 4.0, "rank 0 of 2: ");
    progress.step("conv1 Forward, micro-batch 1", 1.0);
    progress.step("conv1 Forward, micro-batch 2", 3.0);
  });
  EXPECT_NE(lines.find("rank 0 of 2: [1/2] conv1 Forward, micro-batch 1 (ETA "), std::string::npos)
      << lines;
  EXPECT_NE(lines.find("rank 0 of 2: [2/2] conv1 Forward, micro-batch 2 (done)\n"),
            std::string::npos)
      << lines;
  EXPECT_EQ(lines.find('\r'), std::string::npos);
}

TEST(Progress, ABarRedrawnInPlaceOnATerminal) {
  const std::string bar = testing::printed_text([](std::FILE* out) {
    Progress progress(out, true, 2, 4.0);
    progress.step("first", 1.0);
    progress.step("second", 3.0);
  });
  EXPECT_NE(bar.find("\r\033[K[######..................] 1/2 ETA "), std::string::npos) << bar;
  EXPECT_NE(bar.find("\r\033[K[########################] 2/2 done  second\n"), std::string::npos)
      << bar;
}

// A warning while the bar is drawn (a device short of memory) took the bar's line: it went
// after the bar's text, and the next redraw erased it.
TEST(Progress, ALineSaidDuringTheBarGoesAboveIt) {
  const std::string bar = testing::printed_text([](std::FILE* out) {
    Progress progress(out, true, 2, 4.0);
    progress.step("first", 1.0);
    progress.say("ucudnn bench: warning: short of memory");
    progress.step("second", 3.0);
  });
  const auto said = bar.find("\r\033[Kucudnn bench: warning: short of memory\n[######");
  ASSERT_NE(said, std::string::npos) << bar;
  EXPECT_NE(bar.find("1/2 ETA ", said), std::string::npos) << "the bar is drawn again: " << bar;
  EXPECT_NE(bar.find("\r\033[K[########################] 2/2 done  second\n", said),
            std::string::npos)
      << bar;
  const std::string lines = testing::printed_text([](std::FILE* out) {
    Progress progress(out, false, 1, 1.0);
    progress.say("ucudnn bench: warning: short of memory");
    progress.step("only", 1.0);
  });
  EXPECT_EQ(lines, "ucudnn bench: warning: short of memory\n[1/1] only (done)\n");
}

}  // namespace
}  // namespace ucudnn::cli
