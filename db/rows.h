#pragma once
// The rows of the measurements and plans tables as the db code handles them, and the rules
// every row obeys. The same rules hold for a row written by the store, read back from a
// (possibly poisoned) file, merged from another database or imported from a file: a row
// that breaks them is treated as absent.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/benchmark_store.h"

namespace ucudnn::db {

// The kernel is kept as its canonical text: the db never needs to rebuild a KernelKey.
struct MeasurementRow {
  std::string fingerprint;
  std::string kernel_key;
  std::string kernel_hash;  // KernelKey::hash_hex() of kernel_key
  std::string backend;
  std::string algorithm;
  std::int64_t micro_batch = 0;
  std::optional<Measurement> measurement;  // empty: measured, unsupported
  std::int64_t measured_at = 0;
};

// key.workspace_limit is where the plan's range of limits starts (LimitRange::from).
struct PlanRow {
  PlanKey key;
  std::vector<Configuration> configurations;
  std::int64_t created_at = 0;
  std::uint64_t valid_below = 0;  // LimitRange::below

  LimitRange limits() const { return {key.workspace_limit, valid_below}; }
};

// Which row stays when a key is written again. A stored row whose timestamp is not an
// integer always gives way.
enum class Conflict {
  kReplace,       // the new row (a store's put_plan: the caller re-planned for a reason)
  kNewerOrEqual,  // unless the stored row is strictly newer (a store's put_measurements)
  kNewer,         // only when strictly newer (merge and import: running them twice is a no-op)
};

// KernelKey::hash_hex() computed from the key's text: FNV-1a, 16 hex digits.
std::string kernel_hash_of(std::string_view kernel_key);

// `now` fills a zero measured_at; a workspace above INT64_MAX (which SQLite cannot hold) is
// kept as INT64_MAX: still larger than any real workspace limit.
MeasurementRow to_row(const MeasurementRecord& record, std::int64_t now);
MeasurementRecord to_record(const MeasurementRow& row, const KernelKey& kernel);

// nullopt when the row obeys the rules; otherwise the first broken one, naming the field.
std::optional<std::string> row_error(const MeasurementRow& row);
std::optional<std::string> row_error(const PlanRow& row);

inline const char* status_of(const MeasurementRow& row) {
  return row.measurement ? "supported" : "unsupported";
}

}  // namespace ucudnn::db
