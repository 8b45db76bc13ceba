// WD with a kernel it can find no plan for (every candidate excluded by the user, CTest sets
// UCUDNN_EXCLUDE_ALGORITHMS=cudnn:* beside UCUDNN_TOTAL_WORKSPACE_SIZE, at info): frameworks ask
// Get before every call of a layer, and each answer is cuDNN's own, planned once: the failure is
// remembered as WR remembers a limit that found nothing, not planned again (a store lookup and
// a table of candidates) at every Get; a Find plans again, as under WR.
#include <gtest/gtest.h>

#include <string>

#include "legacy_layers.h"
#include "support/printed_text.h"

namespace {

using namespace ucudnn::testing;

class DivisionWithoutPlan : public LegacyLayers {};

TEST_F(DivisionWithoutPlan, AKernelWithoutAPlanIsPlannedOnceHoweverOftenItIsAskedAbout) {
  Layer& l = add_layer(8, 3, 8, 3, 1);
  constexpr int kAsked = 6;
  ::testing::internal::CaptureStderr();
  for (int i = 0; i < kAsked; ++i) {
    cudnnConvolutionFwdAlgoPerf_t best{};
    ASSERT_EQ(get_v7(l, &best), CUDNN_STATUS_SUCCESS) << "ask " << i;
    EXPECT_EQ(best.status, CUDNN_STATUS_SUCCESS) << "ask " << i;
    EXPECT_NE(static_cast<int>(best.algo), static_cast<int>(kVirtualForward))
        << "cuDNN's own answer, at ask " << i;
  }
  // Each planning says so (the first as a warning, the later ones at info).
  const std::string asked = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(asked, "no plan for "), 1) << asked;
  EXPECT_NE(asked.find("UCUDNN_EXCLUDE_ALGORITHMS excludes every candidate"), std::string::npos)
      << asked;

  // A Find plans again, as under WR (what failed may have been for want of memory then).
  ::testing::internal::CaptureStderr();
  cudnnConvolutionFwdAlgoPerf_t found[2] = {};
  int returned = 0;
  EXPECT_EQ(
      cudnnFindConvolutionForwardAlgorithm(handle, l.x, l.w, l.conv, l.y, 2, &returned, found),
      CUDNN_STATUS_SUCCESS);
  const std::string find = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count_of(find, "no plan for "), 1) << find;
  ASSERT_GE(returned, 1);
  EXPECT_NE(static_cast<int>(found[0].algo), static_cast<int>(kVirtualForward));
}

}  // namespace
