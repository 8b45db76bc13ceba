// Every way a program reaches cuDNN, on the test doubles, with nothing, with the preload alone
// (scripts/ucudnn-run with UCUDNN_RUN_AUDIT=0) and with scripts/ucudnn-run (preload and auditor).
// The programs print what cudnnGetConvolutionForwardAlgorithmMaxCount answers: the double's 8
// forward algorithms, or 9 when the shim answered (its virtual algorithm first). The table
// these tests check is README's "Loading styles".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "support/real_cudnn_dir.h"
#include "support/subprocess.h"

namespace ucudnn::testing {
namespace {

using Environment = std::map<std::string, std::optional<std::string>>;
constexpr int kCudnn = 8, kShim = 9;

enum class Under { kNothing, kPreload, kRun };

class LoadingStyles : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("ucudnn-loading-" + std::to_string(::getpid()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(folder_);
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  // The doubles under the library path, the program's output.
  ProcessResult run(Under under, std::vector<std::string> argv, Environment extra = {}) const {
    Environment environment = {{"LD_LIBRARY_PATH", std::string(UCUDNN_FAKECUDA_DIR)},
                               {"UCUDNN_DATABASE", ":memory:"},
                               {"LD_PRELOAD", std::nullopt},
                               {"LD_AUDIT", std::nullopt},
                               {"UCUDNN_PRELOAD_LIBRARY", std::string(UCUDNN_PRELOAD)},
                               {"UCUDNN_AUDIT_LIBRARY", std::string(UCUDNN_AUDIT_LIBRARY)}};
    for (auto& [name, value] : extra) environment[name] = value;
    if (under != Under::kNothing) {
      environment["UCUDNN_RUN_AUDIT"] = under == Under::kRun ? "1" : "0";
      argv.insert(argv.begin(), UCUDNN_RUN_SCRIPT);
    }
    return run_process(argv, environment);
  }
  int algorithms(Under under, std::vector<std::string> argv, Environment extra = {}) const {
    const ProcessResult r = run(under, std::move(argv), std::move(extra));
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    int count = -1;
    const auto at = r.out.find("algorithms ");
    if (at != std::string::npos) std::sscanf(r.out.c_str() + at, "algorithms %d", &count);
    return count;
  }
  // The three ways of running, each seen through `argv`.
  void expect(std::vector<std::string> argv, int preload, int run_script,
              Environment extra = {}) const {
    EXPECT_EQ(algorithms(Under::kNothing, argv, extra), kCudnn) << "without ucudnn";
    EXPECT_EQ(algorithms(Under::kPreload, argv, extra), preload) << "LD_PRELOAD alone";
    EXPECT_EQ(algorithms(Under::kRun, argv, extra), run_script) << "scripts/ucudnn-run";
    Environment now = extra;
    now["LD_BIND_NOW"] = "1";
    EXPECT_EQ(algorithms(Under::kRun, argv, now), run_script) << "ucudnn-run, LD_BIND_NOW=1";
  }
  std::string path(const std::string& name) const { return (folder_ / name).string(); }

  std::filesystem::path folder_;
};

// AddressSanitizer's runtime refuses dlopen(RTLD_DEEPBIND) outright
// (github.com/google/sanitizers/issues/611), so that style is tried in the plain builds only.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kDeepbindTried = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kDeepbindTried = false;
#else
constexpr bool kDeepbindTried = true;
#endif
#else
constexpr bool kDeepbindTried = true;
#endif

bool deepbind_tried() {
  if (!kDeepbindTried)
    std::printf(
        "RTLD_DEEPBIND not tried: AddressSanitizer's runtime refuses it (plain builds try it)\n");
  return kDeepbindTried;
}

const std::string kClient = UCUDNN_LOADING_CLIENT;
const std::string kDoubles = UCUDNN_FAKECUDA_DIR;

TEST_F(LoadingStyles, LinkedWithCudnn) {
  expect({UCUDNN_LINKED_CLIENT}, kShim, kShim);
}

TEST_F(LoadingStyles, DlopenBySonameWithDlsymOnTheHandle) {
  for (const std::string flags : {"local", "global", "deepbind"}) {
    if (flags == "deepbind" && !deepbind_tried()) continue;
    SCOPED_TRACE(flags);
    expect({kClient, "cudnn", "libcudnn.so.9", flags}, kCudnn, kShim);
  }
}

TEST_F(LoadingStyles, DlopenByAnotherName) {
  std::filesystem::create_symlink(kDoubles + "/libcudnn.so.9", path("libcudnn.so"));
  const Environment search = {{"LD_LIBRARY_PATH", path("") + ":" + kDoubles}};
  expect({kClient, "cudnn", "libcudnn.so", "local"}, kCudnn, kShim, search);
}

TEST_F(LoadingStyles, DlopenByAbsolutePath) {
  expect({kClient, "cudnn", kDoubles + "/libcudnn.so.9", "local"}, kCudnn, kShim);
}

// A wheel: the plugin and its own cuDNN in one folder, found through the plugin's DT_RPATH
// ($ORIGIN), not through the library path.
TEST_F(LoadingStyles, PluginWithItsOwnCudnnThroughRpath) {
  for (const std::string name : {"libcudnn.so.9", "libcudart.so.13"})
    std::filesystem::copy_file(kDoubles + "/" + name, path(name));
  std::filesystem::copy_file(UCUDNN_RPATH_PLUGIN, path("plugin.so"));
  const Environment no_search = {{"LD_LIBRARY_PATH", std::nullopt}};
  SCOPED_TRACE("RTLD_LOCAL");
  expect({kClient, "plugin", path("plugin.so"), "local"}, kShim, kShim, no_search);
  if (!deepbind_tried()) return;
  SCOPED_TRACE("RTLD_DEEPBIND");
  expect({kClient, "plugin", path("plugin.so"), "deepbind"}, kCudnn, kShim, no_search);
}

// The auditor knows the shim by what it exports, not by its file name.
TEST_F(LoadingStyles, ARenamedShimIsStillFound) {
  std::filesystem::copy_file(UCUDNN_PRELOAD_LIBRARY, path("my_interposer.so"));
  std::string preload = UCUDNN_PRELOAD;  // under the sanitizers, their runtime comes first
  const auto colon = preload.rfind(':');
  preload =
      (colon == std::string::npos ? "" : preload.substr(0, colon + 1)) + path("my_interposer.so");
  EXPECT_EQ(algorithms(Under::kRun, {kClient, "cudnn", "libcudnn.so.9", "local"},
                       {{"UCUDNN_PRELOAD_LIBRARY", preload}}),
            kShim);
}

// ucudnn installed under cuDNN's name (a copy of the shim as the only libcudnn.so.9): it must
// refuse to take itself for the real library, not call itself until the stack overflows.
TEST_F(LoadingStyles, UcudnnUnderCudnnsNameIsNeverTakenForTheRealOne) {
  std::filesystem::copy_file(UCUDNN_PRELOAD_LIBRARY, path("libcudnn.so.9"));
  std::filesystem::copy_file(kDoubles + "/libcudart.so.13", path("libcudart.so.13"));
  const Environment impostor = {{"LD_LIBRARY_PATH", path("")}};
  for (Under under : {Under::kPreload, Under::kRun}) {
    const ProcessResult r = run(under, {UCUDNN_LINKED_CLIENT}, impostor);
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("create status 1001"), std::string::npos) << r.out << r.err;
    EXPECT_NE(r.err.find("is ucudnn itself, not the real one"), std::string::npos) << r.err;
  }
}

// The auditor on the real cuDNN, opened by path as frameworks that ship their own do
// (scripts/gpu-validate.sh); skipped where cuDNN cannot create a handle (no GPU).
TEST_F(LoadingStyles, RealCudnnOpenedByPathReachesTheShim) {
  const std::string real = real_cudnn_dir() + "/libcudnn.so.9";
  if (!std::filesystem::exists(real)) GTEST_SKIP() << "no real cuDNN at " << real;
  // The libraries the environment gives (a packed build's among them), never the doubles.
  const char* inherited = std::getenv("LD_LIBRARY_PATH");
  const Environment system = {
      {"LD_LIBRARY_PATH", inherited ? std::optional<std::string>(inherited) : std::nullopt}};
  const ProcessResult probe = run(Under::kNothing, {kClient, "cudnn", real, "local"}, system);
  if (probe.out.find("create status 0") == std::string::npos)
    GTEST_SKIP() << "the real cuDNN creates no handle here (no GPU): " << probe.out;
  const int cudnn = algorithms(Under::kNothing, {kClient, "cudnn", real, "local"}, system);
  EXPECT_EQ(algorithms(Under::kRun, {kClient, "cudnn", real, "local"}, system), cudnn + 1);
}

}  // namespace
}  // namespace ucudnn::testing
