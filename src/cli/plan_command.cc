#include "plan_command.h"

#include <cstdio>

#include "core/text.h"
#include "exit_status.h"
#include "plan_explanation.h"
#include "plan_report.h"
#include "stored_network_plan.h"
#include "user_input/byte_size.h"

namespace ucudnn::cli {

void add_plan_command(CLI::App& app, PlanOptions& options) {
  auto* plan = add_planning_command(
      app, "plan", "Print a network's plan from the database, without benchmarking anything",
      options.planning);
  add_plan_source_options(*plan, options.source);
  auto* json = plan->add_flag("--json", options.json, "print the plan as JSON");
  plan->add_flag("--explain", options.explain,
                 "also say per kernel why its plan won: the undivided algorithms that fit, the "
                 "micro-batches, and what a larger limit would buy")
      ->excludes(json);
}

int run_plan_command(const PlanOptions& options) {
  auto read = read_network_plan(options.planning, options.source, "plan");
  if (auto* unavailable = std::get_if<PlanUnavailable>(&read)) {
    report_error("plan", unavailable->message);
    return unavailable->status;
  }
  const StoredNetworkPlan& stored = std::get<StoredNetworkPlan>(read);
  const PlanningRequest& request = stored.request;
  const auto& kernels = stored.kernels;
  const NetworkPlan& plan = stored.plan;
  if (options.json) {
    std::printf("%s\n", plan_json(kernels, plan, request, stored.fingerprint)
                            .dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
                            .c_str());
  } else {
    std::printf(
        "ucudnn plan: %s (%s, %s), batch %lld, %s backend, policy %s, "
        "WR limit %s\nfingerprint: %s\ndatabase: %s\n\n",
        request.network.name.c_str(), counted(request.network.layers.size(), "layer").c_str(),
        counted(kernels.size(), "kernel").c_str(), static_cast<long long>(request.batch),
        request.backend.c_str(), std::string(name_of(request.policy)).c_str(),
        format_byte_size(request.workspace_limit).c_str(), stored.fingerprint.c_str(),
        stored.database.c_str());
    print_wr_plan(stdout, kernels, plan, request);
    print_wd_plan(stdout, kernels, plan, request);
    if (options.explain) print_plan_explanation(stdout, kernels, plan, request);
  }
  const PlanTotals totals = plan_totals(kernels, plan);
  if (totals.without_plan || (plan.division && !*plan.division)) return kFailure;
  return 0;
}

}  // namespace ucudnn::cli
