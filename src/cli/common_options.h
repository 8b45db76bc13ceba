#pragma once
// What `ucudnn bench`, `plan` and `report` share: the network, its batch, the backend, the
// policy and the limits, and where the database is.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

#include "core/algorithm_exclusion.h"
#include "core/batch_size_policy.h"
#include "core/expected.h"
#include "networks/network.h"

namespace ucudnn::cli {

struct PlanningOptions {
  std::string network = "alexnet";
  std::int64_t batch = 32;
  std::string backend = "cpu";
  // Not given: a job's setting (UCUDNN_BATCH_SIZE_POLICY, ...), else these.
  std::string policy = "powerOfTwo";
  bool policy_given = false;
  std::string workspace_limit = "64MiB";
  bool workspace_limit_given = false;
  std::string total_workspace;  // empty: WR only
  bool total_workspace_given = false;
  std::string database;                   // empty: the default database (UCUDNN_DATABASE, ...)
  std::string exclude_algorithms;         // default UCUDNN_EXCLUDE_ALGORITHMS
  bool exclude_algorithms_given = false;  // even empty: it then clears the variable's
};

// A file option's value with a leading "~/" made the home folder (db/default_store.h's
// home_expanded): the shell leaves "--database=~/x.db" as it is.
CLI::Validator home_expanded_path();
// An integer option's check: "'abc' is not a whole number from 1 to 65536".
CLI::Validator whole_number_in(long long minimum, long long maximum);

// A subcommand that plans a network (bench, plan, report), with the options above.
CLI::App* add_planning_command(CLI::App& app, const std::string& command_name,
                               const std::string& description, PlanningOptions& options);
// Where `plan` and `report` read a plan from: the device's results (--fingerprint), and whether
// to plan among what the database has where measurements are missing (--measured-only).
struct PlanSource {
  std::string fingerprint;  // empty: this machine's device, else the database's only one
  bool measured_only = false;
};
void add_plan_source_options(CLI::App& command, PlanSource& source);

// The options checked and parsed.
struct PlanningRequest {
  Network network;
  std::int64_t batch = 0;
  std::string backend;
  BatchSizePolicy policy = BatchSizePolicy::kPowerOfTwo;
  std::uint64_t workspace_limit = 0;
  std::optional<std::uint64_t> total_workspace;
  // The three as given, or as the job's settings gave them: what an advised command repeats.
  std::string policy_text, workspace_limit_text, total_workspace_text;
  AlgorithmExclusion excluded;
  // Where `excluded` came from, for messages: "--exclude-algorithms" or the variable.
  std::string excluded_by = "--exclude-algorithms";
  // WR plans made with knob variants among the candidates (`bench --knob-variants`), stored
  // under their own mode (core/plan_mode.h).
  bool knob_variants = false;
};

// The network file's notes (Network::notes) on stderr: "ucudnn plan: note: ...".
void print_network_notes(const Network& network, const std::string& command);

// The error names the option and the value. The second form parses a network text that
// was read elsewhere (by a cluster's rank 0).
Expected<PlanningRequest> resolve(const PlanningOptions& options);
Expected<PlanningRequest> resolve(const PlanningOptions& options,
                                  const Expected<NetworkText>& network);

// "cpu", and "cudnn" in builds with the cuDNN headers.
std::vector<std::string> available_backends();

}  // namespace ucudnn::cli
