#include "report_command.h"

#include <cstdio>

#include "exit_status.h"
#include "output_file.h"
#include "plan_report.h"
#include "report/html_page.h"
#include "report/report_model.h"
#include "stored_network_plan.h"

namespace ucudnn::cli {

void add_report_command(CLI::App& app, ReportOptions& options) {
  auto* report = add_planning_command(
      app, "report",
      "Write a network's plan as one HTML page (Pareto fronts, per-layer times, the WD "
      "workspace), from the database, without benchmarking anything",
      options.planning);
  add_plan_source_options(*report, options.source);
  report->add_option("--out", options.out, "the HTML file to write ('-': standard output)")
      ->transform(home_expanded_path())
      ->capture_default_str();
}

int run_report_command(const ReportOptions& options) {
  if (options.out.empty()) {
    report_error("report", "--out: an empty file name ('-' writes to standard output)");
    return kUsageError;
  }
  auto read = read_network_plan(options.planning, options.source, "report");
  if (auto* unavailable = std::get_if<PlanUnavailable>(&read)) {
    report_error("report", unavailable->message);
    return unavailable->status;
  }
  const StoredNetworkPlan& stored = std::get<StoredNetworkPlan>(read);
  const report::ReportModel model = report::build_report_model(stored);
  const std::string page = report::html_page(model);
  OutputFile out(options.out, "--out");
  if (std::ostream* stream = out.stream()) *stream << page;
  if (!out.commit()) {
    report_error("report", out.error());
    return kFailure;
  }
  if (!out.to_standard_output()) {
    std::fprintf(stderr, "ucudnn report: wrote %s (%zu kernels, %zu KiB)\n", options.out.c_str(),
                 stored.kernels.size(), page.size() / 1024);
  }
  // The page shows what has no plan; the status says so, as plan's does.
  const PlanTotals totals = plan_totals(stored.kernels, stored.plan);
  if (totals.without_plan) {
    std::string why;
    for (const auto& kernel : stored.plan.plans)
      if (!kernel.plan) {
        why = kernel.plan_error;
        break;
      }
    report_error("report", "no plan for " + std::to_string(totals.without_plan) + " of the " +
                               std::to_string(stored.kernels.size()) + " kernels (" + why + ")");
  }
  const bool division_failed = stored.plan.division && !*stored.plan.division;
  if (division_failed)
    report_error("report", "no workspace division: " + stored.plan.division->error());
  return totals.without_plan || division_failed ? kFailure : 0;
}

}  // namespace ucudnn::cli
