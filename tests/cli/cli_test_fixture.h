#pragma once
// The `ucudnn` tool run as a user runs it, for the end-to-end tests: a temporary folder per
// test, a clean environment, the network options of runs small enough for 2 cores.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/subprocess.h"
#include "support/temp_folder.h"

namespace ucudnn::testing {

using nlohmann::json;
using Environment = std::map<std::string, std::optional<std::string>>;

inline const std::string kTool = UCUDNN_CLI;
inline const std::string kTiny = std::string(UCUDNN_SOURCE_DIR) + "/tests/cli/networks/tiny.json";
inline const std::string kFakeCuda = UCUDNN_FAKECUDA_DIR;
inline const std::string kMpirun = UCUDNN_MPIRUN;

// The network options of a run small enough for 2 cores: 4 layers (one repeated), powers
// of two; bench adds --repeats 1.
inline std::vector<std::string> network_args(int batch = 4, const std::string& limit = "256KiB") {
  return {"--network", kTiny,        "--batch",           std::to_string(batch),
          "--policy",  "powerOfTwo", "--workspace-limit", limit};
}
inline std::vector<std::string> bench_args(int batch = 4) {
  auto args = network_args(batch);
  args.insert(args.end(), {"--repeats", "1"});
  return args;
}

inline std::vector<std::string> concat(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::string describe(const ProcessResult& r) {
  return "exit " + std::to_string(r.status) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err;
}

// "measured N new, reused M" of a bench run.
inline std::pair<long, long> counts(const ProcessResult& r) {
  long measured = -1, reused = -1;
  const auto at = r.out.find("measured ");
  if (at != std::string::npos)
    std::sscanf(r.out.c_str() + at, "measured %ld new, reused %ld", &measured, &reused);
  return {measured, reused};
}

// The output from the plan table on (the lines before it name files and times).
inline std::string plan_part(const std::string& out) {
  const auto at = out.find("\nlayer ");
  return at == std::string::npos ? "" : out.substr(at);
}

// Rows without their timestamps: what must agree between two runs on a deterministic device.
inline std::multiset<std::string> without_times(const std::vector<json>& rows) {
  std::multiset<std::string> texts;
  for (json row : rows) {
    row.erase("measured_at");
    row.erase("created_at");
    texts.insert(row.dump());
  }
  return texts;
}

class CliTest : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return folder_.file(name); }

  // The tool with a clean environment: the default database in the temporary folder, no
  // device settings from outside, OpenMP already passive (no re-execution).
  ProcessResult run(const std::vector<std::string>& arguments, Environment extra = {}) const {
    std::vector<std::string> argv = arguments;
    argv.insert(argv.begin(), kTool);
    return run_process(argv, environment(std::move(extra)));
  }

  // The same with its standard output sent to `destination` (a file, /dev/full) by the shell.
  ProcessResult run_with_output_to(const std::string& destination,
                                   const std::vector<std::string>& arguments) const {
    std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" > \"$UCUDNN_TEST_OUT\"", "sh",
                                     kTool};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return run_process(argv, environment({{"UCUDNN_TEST_OUT", destination}}));
  }

  // The same under `mpirun -np 2`, unbound, or as `placement` says (the caller skips when there
  // is no mpirun).
  ProcessResult run_mpi(const std::vector<std::string>& arguments, Environment extra = {},
                        const std::vector<std::string>& placement = {"--bind-to", "none", "-np",
                                                                     "2"}) const {
    std::vector<std::string> argv = placement;
    argv.push_back(kTool);
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return run_mpirun(argv, std::move(extra));
  }
  // Two ranks, rank 1 with `second` in its environment as well (mpirun's form for ranks that
  // differ: "-np 1 A : -np 1 B").
  ProcessResult run_mpi_second_rank_apart(const std::vector<std::string>& arguments,
                                          Environment extra, const Environment& second) const {
    std::vector<std::string> argv = {"--bind-to", "none", "-np", "1", kTool};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    for (const std::string& part :
         {std::string(":"), std::string("-np"), std::string("1"), std::string("/usr/bin/env")})
      argv.push_back(part);
    for (const auto& [name, value] : second) argv.push_back(name + "=" + value.value_or(""));
    argv.push_back(kTool);
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return run_mpirun(argv, std::move(extra));
  }
  // mpirun with `arguments` after its own (placement and programs).
  ProcessResult run_mpirun(const std::vector<std::string>& arguments, Environment extra) const {
    Environment mpi = {{"OMPI_ALLOW_RUN_AS_ROOT", "1"},
                       {"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"},
                       // Open MPI keeps some memory to the end; not ours to report.
                       {"ASAN_OPTIONS", "detect_leaks=0"}};
    for (auto& [name, value] : extra) mpi[name] = value;
    // Unbound: the CPU backend's ranks each run one thread per core (and refuse otherwise).
    std::vector<std::string> argv = {kMpirun, "--oversubscribe"};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return run_process(argv, environment(std::move(mpi)));
  }

  // Every row of a database: (measurements, plans), through `ucudnn db export --lines`.
  std::pair<std::vector<json>, std::vector<json>> rows(const std::string& database) const {
    const auto exported = run({"db", "export", "--lines", "--database", database});
    EXPECT_EQ(exported.status, 0) << describe(exported);
    std::vector<json> measurements, plans;
    std::istringstream lines(exported.out);
    std::string line;
    std::getline(lines, line);  // the header
    while (std::getline(lines, line)) {
      json row = json::parse(line);
      if (row["type"] == "measurement") measurements.push_back(std::move(row));
      if (row["type"] == "plan") plans.push_back(std::move(row));
    }
    return {measurements, plans};
  }

  Environment environment(Environment extra) const {
    Environment environment = {{"UCUDNN_DATABASE", path("default.db")},
                               {"UCUDNN_SYSTEM_DATABASE", std::nullopt},
                               {"UCUDNN_DEVICES", std::nullopt},
                               {"UCUDNN_BENCHMARK_DEVICES", std::nullopt},
                               {"LD_LIBRARY_PATH", std::nullopt},
                               {"OMP_WAIT_POLICY", "passive"},
                               // A job's settings, the planning options' defaults.
                               {"UCUDNN_WORKSPACE_LIMIT", std::nullopt},
                               {"UCUDNN_DEFAULT_WORKSPACE_LIMIT", std::nullopt},
                               {"UCUDNN_BATCH_SIZE_POLICY", std::nullopt},
                               {"UCUDNN_TOTAL_WORKSPACE_SIZE", std::nullopt}};
    for (auto& [name, value] : extra) environment[name] = value;
    return environment;
  }

  static bool have_mpirun() { return !kMpirun.empty() && ::access(kMpirun.c_str(), X_OK) == 0; }
  static bool have_fakecuda() { return !kFakeCuda.empty(); }

  Environment fakecuda(Environment extra = {}) const {
    extra["LD_LIBRARY_PATH"] = kFakeCuda;
    extra["FAKECUDA_COMPUTE"] = "0";  // the doubles' times are modeled: no arithmetic needed
    return extra;
  }

  TempFolder folder_{"ucudnn-cli-test"};
};

}  // namespace ucudnn::testing
