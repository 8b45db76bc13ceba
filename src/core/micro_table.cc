#include "core/micro_table.h"

#include <algorithm>
#include <tuple>

#include "core/reduction_precision.h"

namespace ucudnn {

namespace {

// Whether a configuration already measured at this size (within the limit) is strictly faster
// than `bound`, a candidate's time and workspace at a smaller size, below what it takes at this
// one; under kDominated also with no more workspace.
bool cannot_win(const std::vector<MicroConfiguration>& measured, const Measurement& bound,
                Pruning pruning) {
  return std::any_of(measured.begin(), measured.end(), [&](const MicroConfiguration& m) {
    return m.time_ms < bound.time_ms &&
           (pruning == Pruning::kFastest || m.workspace_bytes <= bound.workspace_bytes);
  });
}

}  // namespace

MicroTable measure_micro_table(Benchmarker& benchmarker, const KernelKey& kernel,
                               BatchSizePolicy policy, std::uint64_t workspace_limit,
                               Pruning pruning) {
  MicroTable table;
  table.batch = kernel.problem.batch();
  table.sizes = planned_micro_batch_sizes(kernel, policy);
  const auto algorithms = benchmarker.algorithms(kernel);
  const auto backend = benchmarker.backend_name();
  // Each candidate's measurement at the last size it was measured at.
  std::vector<std::optional<Measurement>> bounds(algorithms.size());
  for (auto size : table.sizes) {
    std::vector<MicroConfiguration> fitting;
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      const std::string& algorithm = algorithms[a];
      if (pruning != Pruning::kExhaustive && bounds[a] &&
          cannot_win(fitting, *bounds[a], pruning)) {
        ++table.pruned;
        continue;
      }
      std::optional<Measurement> measured;
      try {
        measured = benchmarker.benchmark(kernel, algorithm, size);
      } catch (const MeasurementUnavailable&) {
        table.complete = false;
        continue;
      } catch (const WorkspaceOverLimit& over) {
        table.smallest_over_limit = std::min(table.smallest_over_limit, over.workspace_bytes);
        continue;
      }
      if (!measured) continue;
      bounds[a] = measured;
      if (measured->workspace_bytes > workspace_limit) {
        table.smallest_over_limit = std::min(table.smallest_over_limit, measured->workspace_bytes);
        continue;
      }
      fitting.push_back({backend, algorithm, size, measured->time_ms, measured->workspace_bytes});
    }
    table.candidates.push_back(std::move(fitting));
  }
  return table;
}

MicroTable restrict_to_limit(const MicroTable& table, std::uint64_t limit) {
  MicroTable result = table;
  for (auto& row : result.candidates)
    std::erase_if(row, [&](const MicroConfiguration& m) {
      if (m.workspace_bytes <= limit) return false;
      result.smallest_over_limit = std::min(result.smallest_over_limit, m.workspace_bytes);
      return true;
    });
  return result;
}

const MicroConfiguration* fastest(const std::vector<MicroConfiguration>& candidates) {
  const MicroConfiguration* best = nullptr;
  for (const auto& c : candidates) {
    if (!best || std::tie(c.time_ms, c.workspace_bytes, c.algorithm) <
                     std::tie(best->time_ms, best->workspace_bytes, best->algorithm))
      best = &c;
  }
  return best;
}

}  // namespace ucudnn
