// ucudnn: benchmark and plan micro-batched convolutions from the command line.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "bench_command.h"
#include "core/device_fingerprint.h"
#include "db_command.h"
#include "exit_status.h"
#include "openmp_environment.h"
#include "plan_command.h"
#include "report_command.h"

int main(int argc, char** argv) {
  ucudnn::cpu::relaunch_with_passive_openmp(argv);
  CLI::App app{"ucudnn: faster convolutions under a workspace limit, by micro-batching"};
  app.set_version_flag("--version", std::string("ucudnn ") + ucudnn::kUcudnnVersion);
  app.require_subcommand(1);
  ucudnn::cli::BenchOptions bench;
  ucudnn::cli::add_bench_command(app, bench);
  ucudnn::cli::PlanOptions plan;
  ucudnn::cli::add_plan_command(app, plan);
  ucudnn::cli::ReportOptions report;
  ucudnn::cli::add_report_command(app, report);
  ucudnn::cli::DbOptions db;
  ucudnn::cli::add_db_command(app, db);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    // --help and --version are not errors; any other parse error is a usage error (exit 2,
    // as the README promises), whatever CLI11's own code for it.
    const int printed = app.exit(error);
    return printed == 0 ? 0 : ucudnn::cli::kUsageError;
  }
  try {
    if (app.got_subcommand("bench")) return ucudnn::cli::run_bench_command(bench);
    if (app.got_subcommand("plan")) return ucudnn::cli::run_plan_command(plan);
    if (app.got_subcommand("report")) return ucudnn::cli::run_report_command(report);
    if (app.got_subcommand("db")) return ucudnn::cli::run_db_command(*app.get_subcommand("db"), db);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "ucudnn: %s\n", error.what());
    return 1;
  }
  return 0;
}
