#pragma once
// A network's plan read from the database, measuring nothing: what `ucudnn plan` prints and
// `ucudnn report` draws. The device is the one asked for (--fingerprint), else this machine's,
// else (no GPU here) the one device the database has results of. Missing measurements are an
// error naming the kernels and the `ucudnn bench` command that measures them, unless asked to
// plan among what there is (a job's database, which holds only what could win at its limit).
#include <string>
#include <variant>
#include <vector>

#include "common_options.h"
#include "network_kernels.h"
#include "planning.h"

namespace ucudnn::cli {

struct StoredNetworkPlan {
  PlanningRequest request;
  std::vector<NetworkKernel> kernels;
  NetworkPlan plan;
  std::string fingerprint;
  std::string database;  // for people: the files read
};

// Why there is no plan: the command's exit status and a message for stderr.
struct PlanUnavailable {
  int status = 0;
  std::string message;
};

// `command` names the subcommand in the notes printed along the way ("ucudnn plan: ...").
// Under `source.measured_only` missing measurements are left out, and counted in a note; a
// kernel the database has no measurement of at all is still an error.
std::variant<StoredNetworkPlan, PlanUnavailable> read_network_plan(const PlanningOptions& options,
                                                                   const PlanSource& source,
                                                                   const std::string& command);

}  // namespace ucudnn::cli
