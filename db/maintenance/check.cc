// `ucudnn db check` (commands.h): every row read back and checked against the rules.
#include <charconv>
#include <filesystem>

#include "core/batch_size_policy.h"
#include "core/division_key.h"
#include "core/plan_mode.h"
#include "core/saturating.h"
#include "core/workspace_sharing.h"
#include "db/database_file.h"
#include "db/maintenance/commands.h"
#include "db/row_reader.h"

namespace ucudnn::db {

namespace {

// The batch of a kernel key's text ("... x=[N,C,...]:..."), when it has one.
std::optional<std::int64_t> batch_of(std::string_view kernel_key) {
  const auto at = kernel_key.find(" x=[");
  if (at == std::string_view::npos) return std::nullopt;
  const char* first = kernel_key.data() + at + 4;
  std::int64_t batch = 0;
  auto [end, error] = std::from_chars(first, kernel_key.data() + kernel_key.size(), batch);
  if (error != std::errc() || end == first) return std::nullopt;
  return batch;
}

std::optional<std::string> measurement_problem(const MeasurementRow& row) {
  if (row.kernel_hash != kernel_hash_of(row.kernel_key))
    return "kernel_hash '" + row.kernel_hash + "' is not the hash of its kernel_key";
  if (auto batch = batch_of(row.kernel_key); batch && *batch != row.micro_batch)
    return "micro_batch " + std::to_string(row.micro_batch) + " differs from the kernel's batch " +
           std::to_string(*batch);
  return std::nullopt;
}

std::optional<std::string> plan_problem(const PlanRow& row) {
  auto policy = parse_batch_size_policy(row.key.policy);
  if (!policy || name_of(*policy) != row.key.policy)
    return "policy '" + row.key.policy + "' is not a batch size policy";
  if (!is_plan_mode(row.key.mode))
    return "mode '" + row.key.mode + "' is not a plan mode (WR, WD, WR+CPU:on, WR+CPU:auto, each " +
           "perhaps +deterministic)";
  if (row.configurations.empty()) return std::string("no configurations");
  for (const auto& configuration : row.configurations)
    if (configuration.micro.empty()) return std::string("a configuration without micro-batches");
  if (is_per_kernel_mode(row.key.mode)) {
    if (row.configurations.size() != 1)
      return std::to_string(row.configurations.size()) + " configurations in a WR plan";
    const auto& plan = row.configurations.front();
    if (auto batch = batch_of(row.key.subject); batch && plan.batch() != *batch)
      return "micro-batches cover " + std::to_string(plan.batch()) + " of " +
             std::to_string(*batch) + " images";
    if (plan.workspace_bytes() > row.key.workspace_limit)
      return "needs " + std::to_string(plan.workspace_bytes()) +
             " bytes of workspace, over the limit of " + std::to_string(row.key.workspace_limit);
  } else if (const auto members = parse_division_subject(row.key.subject)) {
    // Laid out as the shim lays it out: kernels of one stream share a segment.
    if (members->size() != row.configurations.size())
      return std::to_string(row.configurations.size()) + " configurations for the " +
             std::to_string(members->size()) + " kernels its subject lists";
    const auto arena =
        shared_segment_layout(row.configurations, segment_labels(*members)).arena_bytes;
    if (arena > row.key.workspace_limit)
      return "needs an arena of " + std::to_string(arena) + " bytes, over the limit of " +
             std::to_string(row.key.workspace_limit);
  } else {
    std::uint64_t total = 0;
    for (const auto& configuration : row.configurations)
      total = saturating_add(total, configuration.workspace_bytes());
    if (total > row.key.workspace_limit)
      return "needs " + std::to_string(total) + " bytes of workspace in all, over the limit of " +
             std::to_string(row.key.workspace_limit);
  }
  return std::nullopt;
}

}  // namespace

Expected<CheckReport> check_database(const std::string& path, const sqlite::LockWait& wait) {
  CheckReport report;
  try {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) return Error{path + ": no such file"};
    auto outcome = open_database(path, Access::kReadOnly, OpenOptions{wait});
    if (!outcome.database) {
      if (outcome.failure->problem == FileProblem::kCannotOpen)
        return Error{path + ": " + outcome.failure->message};
      report.problems.push_back(outcome.failure->message);
      return report;
    }
    auto& c = outcome.database->connection;
    {
      auto statement = c.prepare("PRAGMA integrity_check(100)");
      auto row = statement.start();
      while (row.step())
        if (const auto message = row.text(0); message != "ok")
          report.problems.push_back("integrity_check: " + message);
    }
    for_each_measurement(c, [&](std::int64_t id, Expected<MeasurementRow> row) {
      ++report.measurements_checked;
      auto problem = row ? measurement_problem(*row) : std::optional(row.error());
      if (problem) report.problems.push_back("measurement " + std::to_string(id) + ": " + *problem);
    });
    for_each_plan(c, [&](std::int64_t id, Expected<PlanRow> row) {
      ++report.plans_checked;
      auto problem = row ? plan_problem(*row) : std::optional(row.error());
      if (problem) report.problems.push_back("plan " + std::to_string(id) + ": " + *problem);
    });
    return report;
  } catch (const sqlite::Error& error) {
    // Damage that quick_check did not see can still stop the row scan midway.
    report.problems.push_back(error.what());
    return report;
  } catch (const std::exception& error) {
    return Error{path + ": " + error.what()};
  }
}

}  // namespace ucudnn::db
