#pragma once
// WR (µ-cuDNN section III-B): the fastest configuration of one kernel whose every
// micro-batch fits the per-kernel workspace limit, by dynamic programming over the
// policy's micro-batch sizes: T(b) = min over sizes s <= b of Tµ(s) + T(b - s).
#include <cstdint>
#include <optional>
#include <vector>

#include "core/expected.h"
#include "core/limit_range.h"
#include "core/micro_table.h"

namespace ucudnn {

// The table must already be restricted to the limit (measure_micro_table does that).
// Ties prefer larger micro-batches (fewer calls). An error when no combination of the
// table's sizes covers the batch within the limit.
Expected<Configuration> plan_workspace_reuse(const MicroTable& table);

// The dynamic program answers every batch up to the table's at once: WR's configuration for
// each b in 0..table.batch (the CPU/GPU hybrid split reads both sides' answers at every b).
class ReuseSolutions {
 public:
  explicit ReuseSolutions(const MicroTable& table);
  std::int64_t batch() const { return static_cast<std::int64_t>(time_.size()) - 1; }
  // T(b); infinity when nothing covers b within the limit (0 for b = 0).
  double time_ms(std::int64_t b) const { return time_[static_cast<std::size_t>(b)]; }
  bool covers(std::int64_t b) const;
  // c(b); empty for b = 0. Precondition: covers(b).
  Configuration configuration(std::int64_t b) const;

 private:
  std::vector<const MicroConfiguration*> best_;  // per size of the table: its fastest
  std::vector<std::int64_t> sizes_;
  std::vector<double> time_;
  std::vector<int> choice_;  // index into sizes of c(b)'s first micro-batch
};

// The limits for which `plan`, WR's answer on `table`, stays WR's answer: from the plan's
// own workspace up to the smallest workspace the table left out (LimitRange).
// `candidates_chosen_at`: the candidates themselves depend on the limit they were chosen under
// (knob variants are offered for the configurations over it): below it, more configurations are
// over the limit and offer variants the table never measured, so the range starts there. Above
// it, up to the smallest workspace left out, no configuration crosses the limit.
LimitRange limits_answered(const MicroTable& table, const Configuration& plan,
                           std::optional<std::uint64_t> candidates_chosen_at = std::nullopt);

}  // namespace ucudnn
