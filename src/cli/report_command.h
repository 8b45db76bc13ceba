#pragma once
// `ucudnn report`: a network's plan as one self-contained HTML page, read from the database
// (measuring nothing): a summary, per layer the plan's time against the best undivided
// algorithm with its micro-batches and workspace, per kernel its Pareto front of time against
// workspace with the WR and WD choices, and the WD arena. The layout is in report/.
#include <CLI/CLI.hpp>

#include <string>

#include "common_options.h"

namespace ucudnn::cli {

struct ReportOptions {
  PlanningOptions planning;
  PlanSource source;  // as `ucudnn plan`'s
  std::string out = "ucudnn-report.html";
};

void add_report_command(CLI::App& app, ReportOptions& options);
int run_report_command(const ReportOptions& options);  // exit status

}  // namespace ucudnn::cli
