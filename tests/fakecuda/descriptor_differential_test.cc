// The double's descriptor checks against the real cuDNN's: descriptor_probe makes the same
// calls (fixed ones, then random ones from a fresh seed) once on the real libcudnn.so.9 and once
// on the double, and every status and read-back value must be equal. The real library needs no
// GPU for descriptors; where it is not installed the test skips, saying so. A call that crashes
// the real cuDNN has no answer to compare with (the shim must refuse it first) and is counted.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "support/printed_text.h"
#include "support/real_cudnn_dir.h"
#include "support/subprocess.h"

namespace {

std::vector<std::string> run_probe(const std::string& library_dir, unsigned long long seed,
                                   int count) {
  return ucudnn::testing::lines_in(
      ucudnn::testing::run_process(
          {UCUDNN_DESCRIPTOR_PROBE, std::to_string(seed), std::to_string(count)},
          {{"LD_LIBRARY_PATH", library_dir}})
          .out);
}

TEST(FakeCudnnDescriptors, AnswerAsTheRealCudnnDoes) {
  const unsigned long long seed = std::random_device{}();
  std::printf("seed %llu (descriptor_probe %llu 3000 reproduces a side)\n", seed, seed);
  const auto real = run_probe(ucudnn::testing::real_cudnn_dir(), seed, 3000);
  if (real.empty() || real[0].rfind("library real", 0) != 0)
    GTEST_SKIP() << "the real libcudnn.so.9 does not load from "
                 << ucudnn::testing::real_cudnn_dir()
                 << " (first line: " << (real.empty() ? "none" : real[0]) << ")";
  const auto fake = run_probe(UCUDNN_FAKECUDA_DIR, seed, 3000);
  ASSERT_FALSE(fake.empty());
  ASSERT_EQ(fake[0].rfind("library double", 0), 0u) << fake[0];
  ASSERT_EQ(fake.size(), real.size());

  int compared = 0, real_crashed = 0, differ = 0;
  std::ostringstream report;
  for (std::size_t i = 1; i < real.size(); ++i) {
    const auto arrow = real[i].find(" => ");
    ASSERT_NE(arrow, std::string::npos) << real[i];
    const std::string call = real[i].substr(0, arrow);
    ASSERT_EQ(fake[i].substr(0, arrow), call) << "the two sides made different calls";
    const std::string expected = real[i].substr(arrow + 4), got = fake[i].substr(arrow + 4);
    if (expected == "crash") {
      ++real_crashed;
      continue;
    }
    ++compared;
    if (got != expected && ++differ <= 25)
      report << call << "\n  cuDNN:  " << expected << "\n  double: " << got << "\n";
  }
  std::printf("%d calls compared, %d crash the real cuDNN (%s)\n", compared, real_crashed,
              real[0].c_str());
  EXPECT_EQ(differ, 0) << differ << " calls answered differently (first 25):\n" << report.str();
  EXPECT_GT(compared, 2500);
}

}  // namespace
