#pragma once
// `ucudnn bench`: benchmarks Forward, BackwardData and BackwardFilter of every layer of a
// network at every micro-batch size the policy allows, on the CPU or on GPUs, stores the
// results (nothing already stored is measured again), then plans: WR for every kernel under
// the per-kernel limit, WD under the total, stored where the shim looks for them (WR plans made
// with --knob-variants under the mode UCUDNN_KNOB_VARIANTS=on reads). Under
// mpirun the ranks share the work and rank 0 writes the database.
#include <CLI/CLI.hpp>

#include <string>

#include "common_options.h"

namespace ucudnn::cli {

struct BenchOptions {
  PlanningOptions planning;
  std::string devices;  // empty: UCUDNN_DEVICES / UCUDNN_BENCHMARK_DEVICES, else the current
  int repeats = 3;
  bool repeats_given = false;  // --repeats on the command line
  bool check_plans = true;     // run each plan beside its undivided baseline (plan_check.h)
  // cudnn: a configuration over the per-kernel limit also offers its smaller-workspace knob
  // values (UCUDNN_KNOB_VARIANTS); WR plans are stored for jobs run with the setting on.
  bool knob_variants = false;
};

void add_bench_command(CLI::App& app, BenchOptions& options);
int run_bench_command(const BenchOptions& options);  // exit status

}  // namespace ucudnn::cli
