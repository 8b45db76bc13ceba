#pragma once
// `ucudnn bench`: benchmarks every kernel of a network on a backend and plans it.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace ucudnn::cli {

struct BenchOptions {
  std::string network = "alexnet";
  std::int64_t batch = 32;
  std::string backend = "cpu";
  std::string policy = "powerOfTwo";
  std::string workspace_limit = "64MiB";
  std::string total_workspace;  // empty: WR only
  int repeats = 3;
  bool verify = true;  // run the plans and the undivided baseline for real, side by side
};

void add_bench_command(CLI::App& app, BenchOptions& options);
int run_bench_command(const BenchOptions& options);  // exit status

}  // namespace ucudnn::cli
