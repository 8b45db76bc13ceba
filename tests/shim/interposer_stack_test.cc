// ucudnn stacked with another tool that wraps cuDNN and the CUDA runtime (an API logger, a
// tracer: tests/shim/loading/cudnn_wrapper.cc), on the test doubles. Below ucudnn (preloaded
// after it, or beside scripts/ucudnn-run), the wrapper must see exactly what reaches cuDNN: the
// micro-batches and ucudnn's measurements, each convolution the doubles ran; above ucudnn
// (preloaded first), the application's own calls. Either way the program runs, is
// micro-batched and gets the results it gets without ucudnn; an error the wrapper answers
// reaches the application as cuDNN's.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "example_program.h"
#include "support/printed_text.h"
#include "support/random_seed.h"

namespace ucudnn::testing {
namespace {

// The framework's per-layer workspace cap: the fast algorithms fit only micro-batches under it.
const std::string kTightLimit = std::to_string(1536 * 1024);
// The calls by which cuDNN runs a convolution; the doubles trace each as one "conv " line.
const char* const kConvolutionCalls[] = {"cudnnConvolutionForward", "cudnnConvolutionBackwardData",
                                         "cudnnConvolutionBackwardFilter", "cudnnBackendExecute"};

enum class Place { kBelow, kAbove, kBesideTheRunScript };

// The preload list with `wrapper` placed relative to the shim (under the sanitizers their
// runtime stays first). Beside the run script the wrapper alone is preloaded, which the script
// puts after the shim; under the sanitizers after their runtime too, since the script's own
// shell loads it (an instrumented library) before the script's exec.
std::string preload_with(const std::string& wrapper, Place place) {
  const std::string preload = UCUDNN_PRELOAD;
  const auto colon = preload.rfind(':');
  const std::string runtime = colon == std::string::npos ? "" : preload.substr(0, colon + 1);
  const std::string shim = preload.substr(colon == std::string::npos ? 0 : colon + 1);
  switch (place) {
    case Place::kAbove:
      return runtime + wrapper + ":" + shim;
    case Place::kBelow:
      return runtime + shim + ":" + wrapper;
    case Place::kBesideTheRunScript:
      break;
  }
  return runtime + wrapper;
}

class InterposerStack : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = std::to_string(random_.uniform(1, 1'000'000'000));
    log_ = ::testing::TempDir() + "ucudnn-wrapper-" + std::to_string(getpid()) + "-" + seed_;
  }
  void TearDown() override { std::remove(log_.c_str()); }

  // The program without ucudnn, run once per test.
  const ProgramRun& baseline() {
    if (!baseline_)
      baseline_ = run_example(UCUDNN_EXAMPLE, {"--workspace-limit", kTightLimit}, {}, seed_);
    return *baseline_;
  }
  ProgramRun with_wrapper(const std::string& wrapper, Place place, Environment extra = {}) const {
    Environment environment = {{"UCUDNN_WORKSPACE_LIMIT", kTightLimit}, {"WRAPPER_LOG", log_}};
    for (auto& [name, value] : extra) environment[name] = value;
    environment["LD_PRELOAD"] = preload_with(wrapper, place);
    if (place == Place::kBesideTheRunScript) {
      environment["UCUDNN_PRELOAD_LIBRARY"] = std::string(UCUDNN_PRELOAD);
      environment["UCUDNN_AUDIT_LIBRARY"] = std::string(UCUDNN_AUDIT_LIBRARY);
      environment["UCUDNN_RUN_AUDIT"] = "1";
      return run_example(UCUDNN_EXAMPLE, {"--workspace-limit", kTightLimit}, environment, seed_,
                         true, UCUDNN_RUN_SCRIPT);
    }
    return run_example(UCUDNN_EXAMPLE, {"--workspace-limit", kTightLimit}, environment, seed_);
  }
  // The wrapper's count of each function it defines, from its log.
  std::map<std::string, long> wrapper_calls() const {
    std::map<std::string, long> calls;
    std::ifstream log(log_);
    std::string name;
    long count = 0;
    while (log >> name >> count) calls[name] = count;
    return calls;
  }
  static long count(const std::map<std::string, long>& calls, const std::string& name) {
    const auto found = calls.find(name);
    return found == calls.end() ? 0 : found->second;
  }
  static long convolutions_seen(const std::map<std::string, long>& calls) {
    long total = 0;
    for (const char* name : kConvolutionCalls) total += count(calls, name);
    return total;
  }
  struct Stacked {
    ProgramRun run;
    std::map<std::string, long> calls;  // the wrapper's
  };
  // Runs the program with the wrapper and checks what every stacking must give.
  Stacked expect_runs_micro_batched(const std::string& wrapper, Place place,
                                    Environment extra = {}) {
    const ProgramRun& without = baseline();
    const ProgramRun with = with_wrapper(wrapper, place, std::move(extra));
    expect_ran_on_doubles(with);
    expect_same_results(without, with);
    EXPECT_GT(micro_batched_calls(with.trace), 0) << "not micro-batched";
    const auto calls = wrapper_calls();
    EXPECT_FALSE(calls.empty()) << "the wrapper wrote no log: was it loaded?";
    const int application_calls = trace_lines(without.trace, "conv ");
    EXPECT_GT(application_calls, 0);
    if (place == Place::kAbove) {
      EXPECT_EQ(convolutions_seen(calls), application_calls)
          << "above ucudnn the wrapper sees the application's calls";
    } else if (calls.count("cudnnConvolutionForward")) {
      EXPECT_EQ(convolutions_seen(calls), trace_lines(with.trace, "conv "))
          << "below ucudnn the wrapper sees every convolution that reaches cuDNN";
      EXPECT_NE(convolutions_seen(calls), application_calls);
    }
    return {with, calls};
  }

  SeededRandom random_;
  std::string seed_, log_;
  std::optional<ProgramRun> baseline_;
};

TEST_F(InterposerStack, WrapperOfCudnnGetVersionAloneBelowUcudnn) {
  for (Place place : {Place::kBelow, Place::kBesideTheRunScript}) {
    SCOPED_TRACE(place == Place::kBelow ? "LD_PRELOAD" : "ucudnn-run");
    const auto stacked = expect_runs_micro_batched(UCUDNN_WRAPPER_VERSION, place);
    EXPECT_GE(count(stacked.calls, "cudnnGetVersion"), 1);
  }
}

TEST_F(InterposerStack, WrapperOfTheConvolutionCallsBelowUcudnnSeesTheMicroBatches) {
  for (Place place : {Place::kBelow, Place::kBesideTheRunScript})
    for (const char* candidates : {"engines", "algorithms"}) {
      SCOPED_TRACE(std::string(place == Place::kBelow ? "LD_PRELOAD" : "ucudnn-run") + ", " +
                   candidates);
      expect_runs_micro_batched(UCUDNN_WRAPPER_CONVOLUTION, place,
                                {{"UCUDNN_CANDIDATES", candidates}});
    }
}

TEST_F(InterposerStack, WrapperOfEverythingBelowUcudnnSeesWhatReachesCudnnAndTheRuntime) {
  for (Place place : {Place::kBelow, Place::kBesideTheRunScript}) {
    SCOPED_TRACE(place == Place::kBelow ? "LD_PRELOAD" : "ucudnn-run");
    const auto stacked = expect_runs_micro_batched(UCUDNN_WRAPPER_ALL, place);
    EXPECT_GE(count(stacked.calls, "cudnnCreate"), 1);
    EXPECT_GE(count(stacked.calls, "cudnnBackendFinalize"), 1)
        << "ucudnn's engine plans, finalized below it";
    // Every allocation in the process, the application's and ucudnn's, passed the wrapper.
    EXPECT_EQ(count(stacked.calls, "cudaMalloc"), trace_lines(stacked.run.trace, "malloc "));
  }
}

TEST_F(InterposerStack, WrapperAboveUcudnnSeesTheApplicationsCalls) {
  expect_runs_micro_batched(UCUDNN_WRAPPER_CONVOLUTION, Place::kAbove);
}

// A tracer that hooks dlsym, as tools that trace cuDNN by way of the dynamic linker do, and
// forwards each call to what cuDNN's own handle gives it. Beside ucudnn-run, the auditor answers
// that lookup with ucudnn's function: the tracer's wrapper of each call ucudnn makes to cuDNN calls
// ucudnn back, which used to call the tracer again without end. ucudnn passes such a call straight
// to cuDNN: the program runs, micro-batched, and the tracer sees each call that reaches cuDNN once.
TEST_F(InterposerStack, TracerThatHooksDlsymSeesEachCallThatReachesCudnnOnce) {
  // The sanitizers' runtime, preloaded first, resolves its interceptors with dlsym(RTLD_NEXT) as
  // it starts: a hook of dlsym relocates those lookups, and any program crashes at once (so does
  // /bin/true), with or without ucudnn.
  if (std::string(UCUDNN_PRELOAD).find(':') != std::string::npos)
    GTEST_SKIP() << "a preload that hooks dlsym cannot run beside the sanitizers' runtime";
  for (Place place : {Place::kBelow, Place::kBesideTheRunScript})
    for (const char* candidates : {"engines", "algorithms"}) {
      SCOPED_TRACE(std::string(place == Place::kBelow ? "LD_PRELOAD" : "ucudnn-run") + ", " +
                   candidates);
      const auto stacked = expect_runs_micro_batched(
          UCUDNN_WRAPPER_DLSYM_HOOK, place,
          {{"UCUDNN_CANDIDATES", candidates}, {"UCUDNN_LOG_LEVEL", "info"}});
      EXPECT_GT(convolutions_seen(stacked.calls), 0) << "the tracer saw no convolution";
      EXPECT_EQ(stacked.run.process.err.find("without end"), std::string::npos)
          << stacked.run.process.err;
      // Handed back to ucudnn only where the auditor answered the tracer's lookup.
      const bool handed_back =
          stacked.run.process.err.find("came back into ucudnn from " +
                                       std::string(UCUDNN_WRAPPER_DLSYM_HOOK)) != std::string::npos;
      EXPECT_EQ(handed_back, place == Place::kBesideTheRunScript) << stacked.run.process.err;
    }
}

// A wrapper with a bug: its answer is cuDNN's answer, passed on to the application, which names
// it and exits as it would on the real library's error; nothing crashes.
TEST_F(InterposerStack, AnErrorTheWrapperAnswersReachesTheApplication) {
  struct Case {
    const char* function;
    const char* candidates;
  };
  // Among the legacy algorithms a failing cudnnConvolutionForward leaves ucudnn no candidate of
  // that operation, and the application's own call gets the wrapper's error.
  for (const Case c :
       {Case{"cudnnCreate", "engines"}, Case{"cudnnConvolutionForward", "algorithms"}}) {
    for (Place place : {Place::kBelow, Place::kBesideTheRunScript}) {
      SCOPED_TRACE(std::string(c.function) +
                   (place == Place::kBelow ? " LD_PRELOAD" : " ucudnn-run"));
      const ProgramRun with =
          with_wrapper(UCUDNN_WRAPPER_ALL, place,
                       {{"WRAPPER_FAIL", c.function}, {"UCUDNN_CANDIDATES", c.candidates}});
      EXPECT_EQ(with.process.status, 1) << with.process.out << with.process.err;
      EXPECT_NE(with.process.err.find(std::string(c.function).substr(0, 15)), std::string::npos)
          << with.process.err;
      EXPECT_NE(with.process.err.find("failed: status 4000"), std::string::npos)
          << with.process.err;
    }
  }
}

// A child forked after training (a helper process the program starts, or one a tool above cuDNN
// starts) that ends with exit() inherits ucudnn's exit work, not the work behind it: the accounts
// at exit are the parent's, said once, and the child ends at once (it used to print them all
// again, and to flush its parent's unsaved results through the parent's database connection).
TEST_F(InterposerStack, AChildForkedAfterTrainingLeavesTheExitWorkToItsParent) {
  const ProgramRun with =
      with_wrapper(UCUDNN_FORK_AT_DESTROY, Place::kAbove, {{"UCUDNN_LOG_LEVEL", "info"}});
  expect_ran_on_doubles(with);
  expect_same_results(baseline(), with);
  const std::string& err = with.process.err;
  EXPECT_EQ(count_of(err, "forked child: exit status 0"), 1) << err;
  for (const char* account : {"kernels planned;", "ucudnn's host time per call",
                              "measuring 15 kernels took", "ucudnn's CUDA runtime calls"})
    EXPECT_EQ(count_of(err, account), 1) << account << "\n" << err;
}

}  // namespace
}  // namespace ucudnn::testing
