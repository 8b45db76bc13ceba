// The rules every row of a database keeps beyond its fields' own ranges (rows.h row_error):
// what `ucudnn db check` reports and `ucudnn db import` refuses.
#include "db/row_problems.h"

#include <charconv>

#include "core/batch_size_policy.h"
#include "core/division_key.h"
#include "core/plan_mode.h"
#include "core/saturating.h"
#include "core/workspace_sharing.h"
#include "db/sqlite.h"

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

// A time to come wins every later merge and import (the newest row wins) for as long: more than
// a day ahead (clocks of a cluster's nodes differ by less) is a bad clock or a hand edit.
std::optional<std::string> future_time(const char* field, std::int64_t at) {
  constexpr std::int64_t kDay = 24 * 60 * 60;
  if (at <= sqlite::unix_now() + kDay) return std::nullopt;
  return std::string(field) + " " + std::to_string(at) + " is more than a day in the future";
}

// What is wrong with a plan row's configurations, unprefixed.
std::optional<std::string> configurations_problem(const PlanRow& row) {
  if (row.configurations.empty()) return std::string("none");
  // A CPU/GPU split may give the CPU the whole batch: no micro-batch on the device.
  for (const auto& configuration : row.configurations)
    if (configuration.micro.empty() && !configuration.offload)
      return std::string("one without micro-batches");
  if (is_per_kernel_mode(row.key.mode)) {
    if (row.configurations.size() != 1)
      return std::to_string(row.configurations.size()) + " in a WR plan, which has one";
    const auto& plan = row.configurations.front();
    if (auto batch = batch_of(row.key.subject); batch && plan.batch() != *batch)
      return "the micro-batches cover " + std::to_string(plan.batch()) + " of " +
             std::to_string(*batch) + " images";
    if (plan.workspace_bytes() > row.key.workspace_limit)
      return "the plan needs " + std::to_string(plan.workspace_bytes()) +
             " bytes of workspace, over the limit of " + std::to_string(row.key.workspace_limit);
  } else if (const auto members = parse_division_subject(row.key.subject)) {
    // Laid out as the shim lays it out: kernels of one stream share a segment.
    if (members->size() != row.configurations.size())
      return std::to_string(row.configurations.size()) + " for the " +
             std::to_string(members->size()) + " kernels its subject lists";
    const auto arena =
        shared_segment_layout(row.configurations, segment_labels(*members)).arena_bytes;
    if (arena > row.key.workspace_limit)
      return "they need an arena of " + std::to_string(arena) + " bytes, over the limit of " +
             std::to_string(row.key.workspace_limit);
  } else {
    std::uint64_t total = 0;
    for (const auto& configuration : row.configurations)
      total = saturating_add(total, configuration.workspace_bytes());
    if (total > row.key.workspace_limit)
      return "they need " + std::to_string(total) +
             " bytes of workspace in all, over the limit of " +
             std::to_string(row.key.workspace_limit);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> measurement_problem(const MeasurementRow& row) {
  if (row.kernel_hash != kernel_hash_of(row.kernel_key))
    return "kernel_hash '" + row.kernel_hash + "' is not the hash of its kernel_key";
  // Each a statistic of the same timed runs: the fastest, the median, the slowest (0 where the
  // benchmarker did not record the spread).
  if (const auto& m = row.measurement;
      m && (m->min_ms > m->time_ms || (m->max_ms > 0 && m->time_ms > m->max_ms)))
    return "time_ms " + std::to_string(m->time_ms) + " is not between min_ms " +
           std::to_string(m->min_ms) + " and max_ms " + std::to_string(m->max_ms);
  if (auto batch = batch_of(row.kernel_key); batch && *batch != row.micro_batch)
    return "micro_batch " + std::to_string(row.micro_batch) + " differs from the kernel's batch " +
           std::to_string(*batch);
  return future_time("measured_at", row.measured_at);
}

std::optional<std::string> plan_problem(const PlanRow& row) {
  if (auto future = future_time("created_at", row.created_at)) return future;
  auto policy = parse_batch_size_policy(row.key.policy);
  if (!policy || name_of(*policy) != row.key.policy)
    return "policy '" + row.key.policy + "' is not a batch size policy";
  if (!is_plan_mode(row.key.mode))
    return "mode '" + row.key.mode + "' is not a plan mode (WR, WD, WR+CPU:on, WR+CPU:auto, each " +
           "perhaps +deterministic)";
  if (auto problem = configurations_problem(row)) return "configurations: " + *problem;
  return std::nullopt;
}

}  // namespace ucudnn::db
