#include "common_options.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "db/default_store.h"
#include "networks/network_file.h"
#include "user_input/byte_size.h"
#include "user_input/setting_value.h"

namespace ucudnn::cli {

CLI::Validator home_expanded_path() {
  return CLI::Validator(
      [](std::string& path) {
        path = home_expanded(path);
        return std::string();
      },
      "", "");
}

CLI::Validator whole_number_in(long long minimum, long long maximum) {
  const std::string range = std::to_string(minimum) + " to " + std::to_string(maximum);
  return CLI::Validator(
      [minimum, maximum, range](std::string& text) {
        long long value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < minimum ||
            value > maximum)
          return "'" + text + "' is not a whole number from " + range;
        return std::string();
      },
      "", "");
}

CLI::App* add_planning_command(CLI::App& app, const std::string& command_name,
                               const std::string& description, PlanningOptions& options) {
  CLI::App* command = app.add_subcommand(command_name, description);
  std::string networks;
  for (const auto& name : builtin_network_names())
    networks += (networks.empty() ? "" : ", ") + name;
  command
      ->add_option("--network", options.network,
                   "a built-in network (" + networks + ") or a network file (JSON)")
      ->transform(home_expanded_path())
      ->capture_default_str();
  command->add_option("--batch", options.batch, "mini-batch size")
      ->check(whole_number_in(1, 65536))
      ->capture_default_str();
  std::string backends;
  for (const auto& name : available_backends()) backends += (backends.empty() ? "" : ", ") + name;
  command->add_option("--backend", options.backend, "device: " + backends)->capture_default_str();
  // A job's settings are the defaults (resolve), as UCUDNN_EXCLUDE_ALGORITHMS is below.
  command
      ->add_option("--policy", options.policy,
                   "micro-batch sizes: " + batch_size_policy_names() +
                       " (default: UCUDNN_BATCH_SIZE_POLICY, else powerOfTwo)")
      ->each([&options](const std::string&) { options.policy_given = true; });
  command
      ->add_option("--workspace-limit", options.workspace_limit,
                   "per-kernel workspace limit (WR), e.g. 8MiB (default: UCUDNN_WORKSPACE_LIMIT, "
                   "else 64MiB)")
      ->each([&options](const std::string&) { options.workspace_limit_given = true; });
  command
      ->add_option("--total-workspace", options.total_workspace,
                   "total workspace for the whole network: also plan WD, e.g. 256MiB; 0: WR only "
                   "(default: UCUDNN_TOTAL_WORKSPACE_SIZE)")
      ->each([&options](const std::string&) { options.total_workspace_given = true; });
  command
      ->add_option("--exclude-algorithms", options.exclude_algorithms,
                   "algorithms never benchmarked nor planned: backend:NAME,... with shell "
                   "wildcards, e.g. cpu:WINOGRAD_F4X4_3X3,cudnn:eng34* (default: "
                   "UCUDNN_EXCLUDE_ALGORITHMS)")
      ->each([&options](const std::string&) { options.exclude_algorithms_given = true; });
  command
      ->add_option("--database", options.database,
                   "the database file, and no other (default: UCUDNN_DATABASE, else "
                   "$XDG_CACHE_HOME/ucudnn/ucudnn.db or ~/.cache/ucudnn/ucudnn.db, read over "
                   "the read-only UCUDNN_SYSTEM_DATABASE when that is set)")
      ->transform(home_expanded_path());
  return command;
}

void add_plan_source_options(CLI::App& command, PlanSource& source) {
  command.add_option("--fingerprint", source.fingerprint,
                     "the device the measurements are for, as `ucudnn db info` shows it "
                     "(default: this machine's; for cudnn without a GPU, the database's only one)");
  command.add_flag("--measured-only", source.measured_only,
                   "plan among the measurements the database has, leaving out the missing ones "
                   "(a job's database: the shim measures only what can win at its limit)");
}

std::vector<std::string> available_backends() {
#ifdef UCUDNN_CLI_HAVE_CUDNN
  return {"cpu", "cudnn"};
#else
  return {"cpu"};
#endif
}

void print_network_notes(const Network& network, const std::string& command) {
  for (const auto& note : network.notes)
    std::fprintf(stderr, "ucudnn %s: note: %s\n", command.c_str(), note.c_str());
}

namespace {

// An option's value, or where it was not given, the job setting's that is its default (read as
// the shim reads it), with the words an error about it starts with: "--workspace-limit: ", or
// "UCUDNN_WORKSPACE_LIMIT (--workspace-limit's default): ". A setting taken is noted, so that the
// header's limit is no surprise.
std::pair<std::string, std::string> with_default(const std::string& value, bool given,
                                                 const std::string& option, const char* setting,
                                                 const char* alias,
                                                 std::vector<std::string>& notes) {
  std::string used;
  if (given) return {value, option + ": "};
  if (const auto note = ignored_alias_note(std::getenv, setting, alias)) notes.push_back(*note);
  const auto set = setting_value(std::getenv, setting, alias, used);
  if (!set) return {value, option + ": "};
  notes.push_back(option + " " + *set + " is " + used +
                  "'s, as a job's (an option given overrides it)");
  return {*set, used + " (" + option + "'s default): "};
}

}  // namespace

Expected<PlanningRequest> resolve(const PlanningOptions& options) {
  return resolve(options, network_text(options.network));
}

Expected<PlanningRequest> resolve(const PlanningOptions& options,
                                  const Expected<NetworkText>& network_text) {
  PlanningRequest request;
  const auto backends = available_backends();
  if (std::find(backends.begin(), backends.end(), options.backend) == backends.end()) {
    std::string valid;
    for (const auto& name : backends) valid += (valid.empty() ? "" : ", ") + name;
    // "cudnn" in a build without cuDNN is a backend this build lacks; "gpu" none at all.
    const bool known = options.backend == "cpu" || options.backend == "cudnn";
    return Error{"--backend '" + options.backend + "' " +
                 (known ? "is not available in this build" : "is not a backend of ucudnn") +
                 "; valid values: " + valid};
  }
  request.backend = options.backend;
  std::vector<std::string> notes;
  const auto [policy_text, policy_named] = with_default(
      options.policy, options.policy_given, "--policy", "UCUDNN_BATCH_SIZE_POLICY", nullptr, notes);
  auto policy = parse_batch_size_policy(policy_text);
  if (!policy) return Error{policy_named + policy.error()};
  request.policy = *policy;
  request.policy_text = policy_text;
  const auto [limit_text, limit_named] =
      with_default(options.workspace_limit, options.workspace_limit_given, "--workspace-limit",
                   "UCUDNN_WORKSPACE_LIMIT", "UCUDNN_DEFAULT_WORKSPACE_LIMIT", notes);
  auto limit = parse_byte_size(limit_text);
  if (!limit) return Error{limit_named + limit.error()};
  if (const auto note = unitless_size_note(limit_text)) notes.push_back(limit_named + *note);
  if (const auto note = zero_limit_note(limit_text)) notes.push_back(limit_named + *note);
  request.workspace_limit = *limit;
  request.workspace_limit_text = limit_text;
  const auto [total_text, total_named] =
      with_default(options.total_workspace, options.total_workspace_given, "--total-workspace",
                   "UCUDNN_TOTAL_WORKSPACE_SIZE", nullptr, notes);
  // Given, an empty value is an error, not WR alone; 0 is WR only, as
  // UCUDNN_TOTAL_WORKSPACE_SIZE=0 is for a job (a division of nothing).
  if (options.total_workspace_given || !total_text.empty()) {
    auto total = parse_byte_size(total_text);
    if (!total) return Error{total_named + total.error()};
    if (const auto note = unitless_size_note(total_text)) notes.push_back(total_named + *note);
    if (*total > 0) request.total_workspace = *total;
    request.total_workspace_text = total_text;
  }
  // Read here rather than by the option parser, so that messages name what the user set.
  std::string exclusion = options.exclude_algorithms;
  if (const char* variable = std::getenv("UCUDNN_EXCLUDE_ALGORITHMS");
      !options.exclude_algorithms_given && exclusion.empty() && variable && *variable) {
    exclusion = variable;
    request.excluded_by = "UCUDNN_EXCLUDE_ALGORITHMS";
  }
  auto excluded = AlgorithmExclusion::parse(exclusion);
  if (!excluded) return Error{request.excluded_by + ": " + excluded.error()};
  request.excluded = std::move(excluded).value();
  request.batch = options.batch;
  if (!network_text) return Error{"--network: " + network_text.error()};
  auto network = parse_network(*network_text, options.batch);
  if (!network) return Error{"--network: " + network.error()};
  request.network = std::move(*network);
  request.network.notes.insert(request.network.notes.end(), notes.begin(), notes.end());
  return request;
}

}  // namespace ucudnn::cli
