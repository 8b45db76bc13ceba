// The double's graph (backend) API checks against the real cuDNN's: backend_probe builds the
// same descriptors (fixed cases, then random ones from a fresh seed) once on the real
// libcudnn.so.9 and once on the double, and every status and read-back value must be equal. The
// real library finalizes these descriptors on the host, without a GPU; where it is not installed
// the test skips, saying so. A case that crashes the real cuDNN is compared up to the crash and
// counted.
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

// The probe's output, case by case.
std::vector<std::vector<std::string>> run_probe(const std::string& library_dir,
                                                unsigned long long seed, int count,
                                                std::string& library) {
  const auto probe = ucudnn::testing::run_process(
      {UCUDNN_BACKEND_PROBE, std::to_string(seed), std::to_string(count)},
      {{"LD_LIBRARY_PATH", library_dir}});
  std::vector<std::vector<std::string>> cases;
  for (const auto& line : ucudnn::testing::lines_in(probe.out)) {
    if (line.rfind("library ", 0) == 0)
      library = line;
    else if (line.rfind("case ", 0) == 0)
      cases.emplace_back();
    else if (!cases.empty())
      cases.back().push_back(line);
  }
  return cases;
}

TEST(FakeCudnnBackend, DescriptorsAnswerAsTheRealCudnnDoes) {
  const unsigned long long seed = std::random_device{}();
  constexpr int kCases = 600;
  std::printf("seed %llu (backend_probe %llu %d reproduces a side)\n", seed, seed, kCases);
  std::string real_library, fake_library;
  const auto real = run_probe(ucudnn::testing::real_cudnn_dir(), seed, kCases, real_library);
  if (real_library != "library real")
    GTEST_SKIP() << "the real libcudnn.so.9 does not load from "
                 << ucudnn::testing::real_cudnn_dir();
  const auto fake = run_probe(UCUDNN_FAKECUDA_DIR, seed, kCases, fake_library);
  ASSERT_EQ(fake_library, "library double");
  ASSERT_EQ(fake.size(), real.size());

  int compared = 0, crashed = 0, differ = 0;
  std::ostringstream report;
  // A case is compared up to its first difference: later calls may follow from it.
  for (std::size_t k = 0; k < real.size(); ++k) {
    for (std::size_t i = 0; i < real[k].size(); ++i) {
      if (real[k][i] == "crash") {
        ++crashed;
        break;
      }
      ++compared;
      const std::string got = i < fake[k].size() ? fake[k][i] : "(nothing)";
      if (got == real[k][i]) continue;
      if (++differ <= 25)
        report << "case " << k << ":\n  cuDNN:  " << real[k][i] << "\n  double: " << got << "\n";
      break;
    }
  }
  std::printf("%d calls in %zu cases compared, %d cases crash the real cuDNN\n", compared,
              real.size(), crashed);
  EXPECT_EQ(differ, 0) << differ << " cases answered differently (first 25):\n" << report.str();
  EXPECT_GT(compared, 10000);
}

}  // namespace
