#pragma once
// `ucudnn plan`: a network's plan from the database, without benchmarking anything: per
// kernel the micro-batches and algorithms, time, workspace and speedup over the best
// undivided algorithm within the limit, and the WD plan with --total-workspace. --json for
// scripts (the shape is in plan_report.h).
#include <CLI/CLI.hpp>

#include <string>

#include "common_options.h"

namespace ucudnn::cli {

struct PlanOptions {
  PlanningOptions planning;
  PlanSource source;
  bool json = false;
  bool explain = false;  // per kernel, why its plan won
};

void add_plan_command(CLI::App& app, PlanOptions& options);
int run_plan_command(const PlanOptions& options);  // exit status

}  // namespace ucudnn::cli
