#include "core/micro_table.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "core/reduction_precision.h"
#include "core/workspace_reuse.h"

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

// One candidate at one size, or nothing where it does not apply (`refused`), is over the limit
// before it runs, or cannot be measured now (the table notes which).
std::optional<Measurement> measure_one(Benchmarker& benchmarker, const KernelKey& kernel,
                                       const std::string& algorithm, std::int64_t size,
                                       MicroTable& table, bool* refused = nullptr) {
  try {
    auto measured = benchmarker.benchmark(kernel, algorithm, size);
    if (refused) *refused = !measured;
    return measured;
  } catch (const MeasurementUnavailable&) {
    table.complete = false;
  } catch (const WorkspaceOverLimit& over) {
    table.smallest_over_limit = std::min(table.smallest_over_limit, over.workspace_bytes);
  }
  if (refused) *refused = false;
  return std::nullopt;
}

// Whether `measured` fits the limit; the table notes the smallest workspace left out.
bool fits(const Measurement& measured, std::uint64_t workspace_limit, MicroTable& table) {
  if (measured.workspace_bytes <= workspace_limit) return true;
  table.smallest_over_limit = std::min(table.smallest_over_limit, measured.workspace_bytes);
  return false;
}

// kFastest over two sizes or more: the largest size first (where PyTorch's own autotuning
// measures every configuration too), then the smaller ones in decreasing order. A candidate's
// time per image at the smallest size it was measured at bounds its time per image at every
// smaller size from below (a GPU is no busier with fewer images): an entry (c, b) costs at least
// b times that, and every other image of a plan at least the least time per image anything is
// known to take. Where even that sum exceeds the best plan of the sizes measured so far, the
// entry cannot be in a better plan, and it is not measured; nor where a candidate measured at
// that size fits and is faster than the entry's bound. A candidate over the limit, or not
// measurable now, bounds nothing until it is measured; one the backend refuses at a size is
// measured at every smaller size at once (mostly refused there too), so that it bounds nothing
// unknown either.
MicroTable measure_largest_first(Benchmarker& benchmarker, const KernelKey& kernel,
                                 MicroTable table, std::uint64_t workspace_limit) {
  const auto algorithms = benchmarker.algorithms(kernel);
  const auto backend = benchmarker.backend_name();
  const std::int64_t batch = table.batch;
  constexpr double kUnknown = -1, kSettled = -2;  // per_image's other values
  // Measurements of one candidate at neighbouring sizes differ by a few percent where the
  // bound says they should not (the repeats' spread; on the synthetic cost model's 3% noise,
  // bounds taken at face value changed 21 of ResNet-50's 69 plans under the policy "all",
  // this allowance none): each entry's own bound is taken that much lower. (Taken off the
  // whole plan's bound it would leave every candidate near the best measured at every size.)
  constexpr double kNoise = 0.05;
  std::vector<double> per_image(algorithms.size(), kUnknown);
  std::vector<std::vector<MicroConfiguration>> rows(table.sizes.size());
  std::vector<std::vector<bool>> tried(table.sizes.size(),
                                       std::vector<bool>(algorithms.size(), false));
  double cheapest_fitting = std::numeric_limits<double>::infinity();  // per image, measured
  // Measures candidate a at size index i; whether the backend refused it there.
  const auto take = [&](std::size_t a, std::size_t i) {
    const std::int64_t size = table.sizes[i];
    tried[i][a] = true;
    bool refused = false;
    const auto measured = measure_one(benchmarker, kernel, algorithms[a], size, table, &refused);
    if (!measured) return refused;
    if (per_image[a] != kSettled) per_image[a] = measured->time_ms / static_cast<double>(size);
    if (!fits(*measured, workspace_limit, table)) return false;
    cheapest_fitting = std::min(cheapest_fitting, measured->time_ms / static_cast<double>(size));
    rows[i].push_back({backend, algorithms[a], size, measured->time_ms, measured->workspace_bytes});
    return false;
  };
  double best_plan = std::numeric_limits<double>::infinity();
  for (std::size_t i = table.sizes.size(); i-- > 0;) {
    const std::int64_t size = table.sizes[i];
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      if (per_image[a] != kUnknown || tried[i][a] || !take(a, i)) continue;
      per_image[a] = kSettled;
      for (std::size_t j = i; j-- > 0;) take(a, j);
    }
    double cheapest = cheapest_fitting;
    for (double p : per_image) {
      if (p == kUnknown) cheapest = 0;
      if (p >= 0) cheapest = std::min(cheapest, p);
    }
    for (std::size_t a = 0; a < algorithms.size(); ++a) {
      if (tried[i][a] || per_image[a] < 0) continue;
      const Measurement bound{per_image[a] * static_cast<double>(size) * (1 - kNoise), 0};
      if (bound.time_ms + cheapest * static_cast<double>(batch - size) > best_plan ||
          cannot_win(rows[i], bound, Pruning::kFastest)) {
        ++table.pruned;
        continue;
      }
      take(a, i);
    }
    // The best plan of the sizes measured so far bounds the smaller ones (a size with nothing
    // that fits changes no plan: under the policy "all" most sizes, once the bounds bite).
    if (rows[i].empty()) continue;
    MicroTable measured = table;
    measured.sizes.assign(table.sizes.begin() + static_cast<std::ptrdiff_t>(i), table.sizes.end());
    measured.candidates.assign(rows.begin() + static_cast<std::ptrdiff_t>(i), rows.end());
    best_plan = ReuseSolutions(measured).time_ms(batch);
  }
  table.candidates = std::move(rows);
  return table;
}

}  // namespace

MicroTable measure_micro_table(Benchmarker& benchmarker, const KernelKey& kernel,
                               BatchSizePolicy policy, std::uint64_t workspace_limit,
                               Pruning pruning) {
  MicroTable table;
  table.batch = kernel.problem.batch();
  table.sizes = planned_micro_batch_sizes(kernel, policy);
  if (pruning == Pruning::kFastest && table.sizes.size() > 1)
    return measure_largest_first(benchmarker, kernel, std::move(table), workspace_limit);
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
      const auto measured = measure_one(benchmarker, kernel, algorithm, size, table);
      if (!measured) continue;
      bounds[a] = measured;
      if (!fits(*measured, workspace_limit, table)) continue;
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
