#include "core/pareto_front.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>
#include <tuple>

namespace ucudnn {

namespace {

// Indices of the non-dominated items, by increasing workspace and strictly decreasing time.
template <typename Item, typename Time, typename Workspace>
std::vector<std::size_t> non_dominated(const std::vector<Item>& items, Time time_of,
                                       Workspace workspace_of) {
  std::vector<std::size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(workspace_of(items[a]), time_of(items[a])) <
           std::make_tuple(workspace_of(items[b]), time_of(items[b]));
  });
  std::vector<std::size_t> kept;
  double best = std::numeric_limits<double>::infinity();
  for (auto index : order) {
    if (time_of(items[index]) < best) {
      kept.push_back(index);
      best = time_of(items[index]);
    }
  }
  return kept;
}

// One element of the front of a sub-batch b: the first micro-configuration and the
// element of the front of b - s that follows it.
struct Entry {
  double time_ms;
  int level;       // index into the sorted distinct workspace sizes
  int size_index;  // into the micro fronts
  int micro_index;
  int rest;  // index into the front of b - s; -1 when b == s
};

}  // namespace

ParetoFront pareto_prune(std::vector<Configuration> configurations) {
  auto kept = non_dominated(
      configurations, [](const Configuration& c) { return c.time_ms(); },
      [](const Configuration& c) { return c.workspace_bytes(); });
  ParetoFront front;
  front.reserve(kept.size());
  for (auto index : kept) front.push_back(std::move(configurations[index]));
  return front;
}

ParetoFront desirable_configurations(const MicroTable& table) {
  const auto batch = table.batch;
  if (batch <= 0) return {};
  const std::size_t size_count = table.sizes.size();

  // The micro-configurations worth combining: the front of each size.
  std::vector<std::vector<MicroConfiguration>> micro(size_count);
  std::vector<std::uint64_t> workspaces;
  for (std::size_t i = 0; i < size_count; ++i) {
    const auto& all = table.candidates[i];
    for (auto index : non_dominated(
             all, [](const MicroConfiguration& m) { return m.time_ms; },
             [](const MicroConfiguration& m) { return m.workspace_bytes; })) {
      micro[i].push_back(all[index]);
      workspaces.push_back(all[index].workspace_bytes);
    }
  }
  std::sort(workspaces.begin(), workspaces.end());
  workspaces.erase(std::unique(workspaces.begin(), workspaces.end()), workspaces.end());
  auto level_of = [&](std::uint64_t bytes) {
    return static_cast<int>(std::lower_bound(workspaces.begin(), workspaces.end(), bytes) -
                            workspaces.begin());
  };
  std::vector<std::vector<int>> micro_level(size_count);
  for (std::size_t i = 0; i < size_count; ++i)
    for (const auto& m : micro[i]) micro_level[i].push_back(level_of(m.workspace_bytes));

  const int levels = static_cast<int>(workspaces.size());
  constexpr double kNone = std::numeric_limits<double>::infinity();
  std::vector<std::vector<Entry>> fronts(batch + 1);
  // at_or_below[b][l]: index of the last element of fronts[b] with level <= l, or -1.
  std::vector<std::vector<int>> at_or_below(batch + 1);
  std::vector<Entry> best(levels, Entry{kNone, 0, 0, 0, 0});
  // Levels touched for the current b, so that clearing and sweeping cost what was used.
  std::vector<std::uint64_t> touched((levels + 63) / 64, 0);

  for (std::int64_t b = 1; b <= batch; ++b) {
    auto consider = [&](int level, double time, int size_index, int micro_index, int rest) {
      if (time < best[level].time_ms) {
        best[level] = {time, level, size_index, micro_index, rest};
        touched[level / 64] |= std::uint64_t{1} << (level % 64);
      }
    };
    for (std::size_t i = size_count; i-- > 0;) {  // larger sizes first win ties
      const auto s = table.sizes[i];
      if (s > b) continue;
      if (b == s) {
        for (std::size_t m = 0; m < micro[i].size(); ++m)
          consider(micro_level[i][m], micro[i][m].time_ms, static_cast<int>(i), static_cast<int>(m),
                   -1);
        continue;
      }
      const auto& rest = fronts[b - s];
      if (rest.empty()) continue;
      const auto& rest_at = at_or_below[b - s];
      for (std::size_t m = 0; m < micro[i].size(); ++m) {
        // Every configuration has a micro-configuration of largest workspace; taking that
        // one first, the rest must fit within its workspace, and the best such rest is the
        // last element of the rest's front at or below its level. Candidates whose rest
        // needs more are generated when their own largest element comes first.
        const int level = micro_level[i][m];
        const int k = rest_at[level];
        if (k >= 0)
          consider(level, micro[i][m].time_ms + rest[k].time_ms, static_cast<int>(i),
                   static_cast<int>(m), k);
      }
    }
    double running = kNone;
    for (std::size_t word = 0; word < touched.size(); ++word) {
      for (auto bits = touched[word]; bits; bits &= bits - 1) {
        auto& e = best[word * 64 + static_cast<std::size_t>(__builtin_ctzll(bits))];
        if (e.time_ms < running) {
          fronts[b].push_back(e);
          running = e.time_ms;
        }
        e.time_ms = kNone;
      }
      touched[word] = 0;
    }
    auto& index = at_or_below[b];
    index.assign(levels, -1);
    for (std::size_t k = 0; k < fronts[b].size(); ++k) {
      const int from = fronts[b][k].level;
      const int to = k + 1 < fronts[b].size() ? fronts[b][k + 1].level : levels;
      std::fill(index.begin() + from, index.begin() + to, static_cast<int>(k));
    }
  }

  ParetoFront result;
  result.reserve(fronts[batch].size());
  for (const auto& top : fronts[batch]) {
    Configuration configuration;
    const Entry* e = &top;
    for (std::int64_t b = batch;;) {
      configuration.micro.push_back(micro[e->size_index][e->micro_index]);
      const auto s = table.sizes[e->size_index];
      if (e->rest < 0) break;
      b -= s;
      e = &fronts[b][e->rest];
    }
    result.push_back(std::move(configuration));
  }
  return result;
}

std::vector<ParetoFront> desirable_configurations(const std::vector<MicroTable>& tables,
                                                  unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(tables.size()));
  std::vector<ParetoFront> fronts(tables.size());
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto work = [&] {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < tables.size();)
        fronts[i] = desirable_configurations(tables[i]);
    } catch (...) {
      next = tables.size();  // the others stop at their next table
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> workers;
    for (unsigned t = 1; t < threads; ++t) workers.emplace_back(work);
    work();
  }  // joined here
  if (error) std::rethrow_exception(error);
  return fronts;
}

}  // namespace ucudnn
