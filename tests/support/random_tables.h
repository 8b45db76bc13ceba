#pragma once
// Random micro-configuration tables and brute-force references for the planner tests.
// Times are small integers so that sums are exact and ties are frequent.
#include <algorithm>
#include <functional>
#include <limits>

#include "core/micro_table.h"
#include "core/pareto_front.h"
#include "support/random_seed.h"

namespace ucudnn::testing {

// A kernel's desirable set from `size` random configurations (times 1-100, workspaces 0-50).
inline ParetoFront random_front(SeededRandom& random, int size) {
  std::vector<Configuration> configurations;
  for (int i = 0; i < size; ++i)
    configurations.push_back(
        Configuration{{MicroConfiguration{"t", std::string("A").append(std::to_string(i)), 1,
                                          static_cast<double>(random.uniform(1, 100)),
                                          static_cast<std::uint64_t>(random.uniform(0, 50))}}});
  return pareto_prune(std::move(configurations));
}

inline MicroTable random_table(SeededRandom& random, std::int64_t batch, BatchSizePolicy policy,
                               int algorithms, double presence = 0.8) {
  MicroTable table;
  table.batch = batch;
  table.sizes = micro_batch_sizes(policy, batch);
  for (auto size : table.sizes) {
    std::vector<MicroConfiguration> row;
    for (int a = 0; a < algorithms; ++a) {
      if (!random.chance(presence)) continue;
      const double time = static_cast<double>(random.uniform(1, 12) * size + random.uniform(0, 20));
      const auto workspace =
          static_cast<std::uint64_t>(random.uniform(0, 3) * size + random.uniform(0, 4));
      row.push_back({"table", "ALGO_" + std::to_string(a), size, time, workspace});
    }
    table.candidates.push_back(std::move(row));
  }
  return table;
}

// A random instance: batch in [1, max_batch], a policy up to `max_policy` (in enum order),
// 1 to max_algorithms algorithms; `description` is for SCOPED_TRACE.
struct RandomCase {
  MicroTable table;
  std::string description;
};

inline RandomCase random_case(SeededRandom& random, std::int64_t max_batch,
                              BatchSizePolicy max_policy, int max_algorithms) {
  const auto batch = random.uniform(1, max_batch);
  const auto policy = static_cast<BatchSizePolicy>(random.uniform(0, static_cast<int>(max_policy)));
  auto table =
      random_table(random, batch, policy, static_cast<int>(random.uniform(1, max_algorithms)));
  return {std::move(table),
          "batch " + std::to_string(batch) + " policy " + std::string(name_of(policy))};
}

// Calls visit(parts) for every multiset of the table's sizes summing to `batch`
// (non-increasing sequences of size indices).
inline void for_each_partition(const MicroTable& table,
                               const std::function<void(const std::vector<std::size_t>&)>& visit) {
  std::vector<std::size_t> parts;
  std::function<void(std::int64_t, std::size_t)> recurse = [&](std::int64_t remaining,
                                                               std::size_t max_index) {
    if (remaining == 0) {
      visit(parts);
      return;
    }
    for (std::size_t i = std::min(max_index + 1, table.sizes.size()); i-- > 0;) {
      if (table.sizes[i] > remaining) continue;
      parts.push_back(i);
      recurse(remaining - table.sizes[i], i);
      parts.pop_back();
    }
  };
  recurse(table.batch, table.sizes.size());
}

// The WR optimum by exhaustive search: every partition, the fastest algorithm per part.
inline double brute_force_wr(const MicroTable& table) {
  double best = std::numeric_limits<double>::infinity();
  for_each_partition(table, [&](const std::vector<std::size_t>& parts) {
    double total = 0;
    for (auto i : parts) {
      const auto* f = fastest(table.candidates[i]);
      if (!f) return;
      total += f->time_ms;
    }
    best = std::min(best, total);
  });
  return best;
}

// Every (time, workspace) point reachable: every partition, every algorithm per part.
inline std::vector<std::pair<double, std::uint64_t>> all_points(const MicroTable& table) {
  std::vector<std::pair<double, std::uint64_t>> points;
  for_each_partition(table, [&](const std::vector<std::size_t>& parts) {
    std::function<void(std::size_t, double, std::uint64_t)> choose = [&](std::size_t p, double t,
                                                                         std::uint64_t w) {
      if (p == parts.size()) {
        points.emplace_back(t, w);
        return;
      }
      for (const auto& m : table.candidates[parts[p]])
        choose(p + 1, t + m.time_ms, std::max(w, m.workspace_bytes));
    };
    choose(0, 0, 0);
  });
  return points;
}

// The non-dominated (time, workspace) points by increasing workspace, strictly decreasing
// time: the Pareto front of a brute-force point set.
inline std::vector<std::pair<double, std::uint64_t>> front_of_points(
    std::vector<std::pair<double, std::uint64_t>> points) {
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second < b.second : a.first < b.first;
  });
  std::vector<std::pair<double, std::uint64_t>> front;
  for (const auto& p : points)
    if (front.empty() || p.first < front.back().first) front.push_back(p);
  return front;
}

}  // namespace ucudnn::testing
