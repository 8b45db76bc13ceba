#pragma once
// Runs examples/conv_network (or its UcudnnHandle_t variant) as a user would and reads back
// what it left: its printed iteration times, its dumped tensors (y, dx, dw of each layer) and the
// doubles' trace. Shared by the suites that run the example under ucudnn (end_to_end_test.cc,
// interposer_stack_test.cc).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "support/printed_text.h"
#include "support/relative_error.h"
#include "support/subprocess.h"
#include "tensor_dump.h"

namespace ucudnn::testing {

using Environment = std::map<std::string, std::optional<std::string>>;

// The example's mini-batch in these suites.
constexpr std::int64_t kExampleBatch = 16;

struct ProgramRun {
  ProcessResult process;
  std::vector<double> iteration_ms;
  std::vector<examples::DumpedTensor> tensors;
  std::string dump_error;
  std::string trace;
};

// `doubles`: put the cuDNN/CUDA test doubles first on the library path; otherwise the program
// loads whatever cuDNN the environment gives it (the real one on a GPU machine). `launcher`: a
// command that runs the program (scripts/ucudnn-run).
inline ProgramRun run_example(const std::string& program, const std::vector<std::string>& args,
                              Environment environment, const std::string& seed, bool doubles = true,
                              const std::string& launcher = "") {
  static int counter = 0;
  const std::string stem = ::testing::TempDir() + "ucudnn-example-" + std::to_string(getpid()) +
                           "-" + std::to_string(counter++);
  const std::string dump = stem + ".dump", trace = stem + ".trace";
  std::vector<std::string> argv = {
      program, "--batch", std::to_string(kExampleBatch), "--seed", seed, "--dump", dump};
  argv.insert(argv.end(), args.begin(), args.end());
  if (!launcher.empty()) argv.insert(argv.begin(), launcher);
  if (doubles) environment["LD_LIBRARY_PATH"] = UCUDNN_FAKECUDA_DIR;
  environment["FAKECUDA_TRACE"] = trace;
  environment.try_emplace("UCUDNN_DATABASE", ":memory:");
  // The doubles' times are exact: one timed run per measurement is enough.
  environment.try_emplace("UCUDNN_BENCHMARK_REPEATS", "1");
  environment.try_emplace("LD_PRELOAD", std::nullopt);
  ProgramRun result;
  result.process = run_process(argv, environment);
  std::istringstream lines(result.process.out);
  for (std::string line; std::getline(lines, line);) {
    int index = 0;
    double ms = 0;
    if (std::sscanf(line.c_str(), "iteration %d: %lf ms", &index, &ms) == 2)
      result.iteration_ms.push_back(ms);
  }
  try {
    result.tensors = examples::read_tensor_dump(dump);
  } catch (const std::exception& error) {
    result.dump_error = error.what();  // a failed run writes none: its callers judge
  }
  result.trace = read_file(trace);
  std::remove(dump.c_str());
  std::remove(trace.c_str());
  return result;
}

inline void expect_ran_on_doubles(const ProgramRun& r) {
  EXPECT_EQ(r.process.status, 0) << r.process.out << r.process.err;
  EXPECT_NE(r.process.out.find("fakecuda"), std::string::npos) << "the doubles were not loaded:\n"
                                                               << r.process.out;
  EXPECT_NE(r.trace.find("fakecuda loaded"), std::string::npos);
}

inline void expect_same_results(const ProgramRun& expected, const ProgramRun& actual) {
  ASSERT_EQ(expected.dump_error, "");
  ASSERT_EQ(actual.dump_error, "");
  ASSERT_EQ(expected.tensors.size(), actual.tensors.size());
  ASSERT_EQ(expected.tensors.size(), 15u);  // y, dx, dw of 5 layers
  for (std::size_t t = 0; t < expected.tensors.size(); ++t) {
    const auto& a = expected.tensors[t];
    const auto& b = actual.tensors[t];
    ASSERT_EQ(a.name, b.name);
    ASSERT_EQ(a.values.size(), b.values.size()) << a.name;
    EXPECT_LT(relative_error(b.values, a.values), 1e-5) << a.name;
  }
}

// Lines of the trace that start with `prefix`.
inline int trace_lines(const std::string& trace, const std::string& prefix) {
  int count = 0;
  std::istringstream lines(trace);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) ++count;
  return count;
}

// Convolutions the doubles ran on fewer images than the batch: micro-batches.
inline int micro_batched_calls(const std::string& trace) {
  int count = 0;
  std::istringstream lines(trace);
  for (std::string line; std::getline(lines, line);) {
    long long n = 0;
    if (line.rfind("conv ", 0) == 0 &&
        std::sscanf(line.c_str() + line.find(" n="), " n=%lld", &n) == 1 && n < kExampleBatch)
      ++count;
  }
  return count;
}

}  // namespace ucudnn::testing
