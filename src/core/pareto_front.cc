#include "core/pareto_front.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>
#include <tuple>

namespace ucudnn {

namespace {

struct SortKey {
  std::uint64_t workspace;
  double time;
  std::size_t index;
};

// Indices of the non-dominated items into `kept`, by increasing workspace and strictly
// decreasing time; `keys` is working memory (both reused by callers that prune often). The
// keys are read once into a small array: sorting through the items themselves (strings
// beside the numbers, a sum per configuration's time) cost most of preparing a table.
template <typename Item, typename Time, typename Workspace>
void non_dominated(const std::vector<Item>& items, Time time_of, Workspace workspace_of,
                   std::vector<SortKey>& keys, std::vector<std::size_t>& kept) {
  keys.clear();
  for (std::size_t i = 0; i < items.size(); ++i)
    keys.push_back({workspace_of(items[i]), time_of(items[i]), i});
  // Ties in both keep their input order (the index settles them).
  std::sort(keys.begin(), keys.end(), [](const SortKey& a, const SortKey& b) {
    return std::tie(a.workspace, a.time, a.index) < std::tie(b.workspace, b.time, b.index);
  });
  kept.clear();
  double best = std::numeric_limits<double>::infinity();
  for (const auto& key : keys) {
    if (key.time < best) {
      kept.push_back(key.index);
      best = key.time;
    }
  }
}

// The dynamic program's working memory, reused across the tables one worker plans: a table
// at batch 256 needs about a megabyte, and allocating it afresh costs page faults each time.
struct FrontScratch {
  // The micro-configurations worth combining (the front of each size), flattened in the
  // order candidates are tried (sizes from the last to the first, each by increasing
  // workspace): size index, micro-batch size, index into the table's candidates, workspace
  // level and time. One flat loop instead of one per size: at a few elements per size, the
  // inner loop's exits cost more than its work.
  std::vector<int> size_of, candidate_of, level_of;
  std::vector<std::int64_t> batch_of;
  std::vector<double> micro_time;
  std::vector<std::uint64_t> workspaces;  // the distinct levels, increasing
  std::vector<SortKey> keys;              // for non_dominated
  std::vector<std::size_t> kept;
  std::vector<std::size_t> chain;  // one answer's micro-configurations, while built

  // The front of every sub-batch b, flattened: elements front_begin[b]..front_begin[b+1],
  // by increasing level; each names its first micro-configuration (the one of largest
  // workspace), the rest being the best front element of b - s at or below its level.
  std::vector<std::size_t> front_begin;
  std::vector<int> front_level, front_micro;  // room beyond front_begin.back() is scratch

  // best_rest[l * (batch + 1) + b]: the time of the fastest element of b's front at or below
  // level l (infinity when none; 0 for b = 0, the empty rest), written up to top_level[b]
  // (at or above its last element's level): above it the answer is the same. By level
  // first: consecutive b read and write neighbouring entries, which keeps the working set
  // in cache where by-b-first rows (a megabyte at batch 256) would not.
  std::vector<double> best_rest;
  std::vector<int> top_level;
  std::vector<double> best_time;  // per level, for the b being computed
  std::vector<int> best_micro;
};

constexpr double kNone = std::numeric_limits<double>::infinity();

void prepare_micro(const MicroTable& table, FrontScratch& scratch) {
  scratch.size_of.clear();
  scratch.batch_of.clear();
  scratch.candidate_of.clear();
  scratch.micro_time.clear();
  scratch.workspaces.clear();
  for (std::size_t i = table.sizes.size(); i-- > 0;) {  // larger sizes first win ties
    const auto& all = table.candidates[i];
    non_dominated(
        all, [](const MicroConfiguration& m) { return m.time_ms; },
        [](const MicroConfiguration& m) { return m.workspace_bytes; }, scratch.keys, scratch.kept);
    for (auto index : scratch.kept) {
      scratch.size_of.push_back(static_cast<int>(i));
      scratch.batch_of.push_back(table.sizes[i]);
      scratch.candidate_of.push_back(static_cast<int>(index));
      scratch.micro_time.push_back(all[index].time_ms);
      scratch.workspaces.push_back(all[index].workspace_bytes);
    }
  }
  scratch.level_of.resize(scratch.size_of.size());
  auto& workspaces = scratch.workspaces;
  std::sort(workspaces.begin(), workspaces.end());
  workspaces.erase(std::unique(workspaces.begin(), workspaces.end()), workspaces.end());
  for (std::size_t j = 0; j < scratch.size_of.size(); ++j) {
    const auto bytes =
        table.candidates[scratch.size_of[j]][scratch.candidate_of[j]].workspace_bytes;
    scratch.level_of[j] = static_cast<int>(
        std::lower_bound(workspaces.begin(), workspaces.end(), bytes) - workspaces.begin());
  }
}

// The dynamic program: the fronts of every sub-batch up to the table's, in `scratch`. False
// when there is nothing to combine (no batch, no micro-configuration).
bool compute_fronts(const MicroTable& table, FrontScratch& scratch) {
  const auto batch = table.batch;
  if (batch <= 0) return false;
  prepare_micro(table, scratch);
  const auto levels = scratch.workspaces.size();
  if (levels == 0) return false;  // no micro-configuration at all
  const int* level_of = scratch.level_of.data();
  const double* micro_time = scratch.micro_time.data();

  scratch.front_begin.assign(2, 0);  // b = 0: the empty rest, no element
  // Entries are written before they are read; only b = 0's is set here.
  const auto stride = static_cast<std::size_t>(batch) + 1;
  scratch.best_rest.resize(stride * levels);
  scratch.best_rest[0] = 0;
  double* best_rest = scratch.best_rest.data();
  scratch.top_level.assign(static_cast<std::size_t>(batch) + 1, 0);
  scratch.best_time.assign(levels, kNone);
  scratch.best_micro.assign(levels, -1);
  double* best_time = scratch.best_time.data();
  int* best_micro = scratch.best_micro.data();
  int* top_level = scratch.top_level.data();
  const std::int64_t* batch_of = scratch.batch_of.data();
  const auto micro_count = scratch.batch_of.size();
  // Sizes not increasing: every micro-configuration is tried and the sizes checked one by one.
  auto first_fitting = std::is_sorted(table.sizes.begin(), table.sizes.end()) ? micro_count : 0;

  for (std::int64_t b = 1; b <= batch; ++b) {
    // Every configuration has a micro-configuration of largest workspace; taking that one
    // first, the rest must fit within its workspace, and the best such rest is the fastest
    // element of the rest's front at or below its level. Candidates whose rest needs more
    // are generated when their own largest element comes first.
    int highest = 0;
    // With sizes increasing (as measured), those that fit b are a suffix of the flat order.
    while (first_fitting > 0 && batch_of[first_fitting - 1] <= b) --first_fitting;
    for (auto m = first_fitting; m < micro_count; ++m) {
      const auto s = batch_of[m];
      if (s > b) continue;  // only where sizes are not increasing
      const int level = level_of[m];
      // Infinity when no rest fits.
      const double time =
          micro_time[m] +
          best_rest[static_cast<std::size_t>(std::min(level, top_level[b - s])) * stride +
                    static_cast<std::size_t>(b - s)];
      const bool better = time < best_time[level];
      best_time[level] = better ? time : best_time[level];
      best_micro[level] = better ? static_cast<int>(m) : best_micro[level];
      highest = better ? std::max(highest, level) : highest;
    }
    // The front: by increasing level, each element faster than all below it. Written
    // branch-free past the elements kept so far (a level joins the front by advancing the
    // write position), into room made before the loop.
    const auto kept = scratch.front_begin.back();
    if (scratch.front_level.size() < kept + static_cast<std::size_t>(highest) + 1) {
      const auto room = std::max(2 * kept, kept + static_cast<std::size_t>(highest) + 1);
      scratch.front_level.resize(room);
      scratch.front_micro.resize(room);
    }
    int* out_level = scratch.front_level.data() + kept;
    int* out_micro = scratch.front_micro.data() + kept;
    double* column = best_rest + b;
    double running = kNone;
    top_level[b] = highest;
    for (int level = 0; level <= highest; ++level) {
      const double time = best_time[level];
      const bool joins = time < running;
      running = joins ? time : running;
      *out_level = level;
      *out_micro = best_micro[level];
      out_level += joins;
      out_micro += joins;
      column[static_cast<std::size_t>(level) * stride] = running;
      best_time[level] = kNone;
    }
    scratch.front_begin.push_back(static_cast<std::size_t>(out_level - scratch.front_level.data()));
  }

  return true;
}

// The front of sub-batch `batch` (1 to the table's) after compute_fronts: each element walked
// back through the rests it was built on.
ParetoFront front_of(const MicroTable& table, FrontScratch& scratch, std::int64_t batch) {
  const int* level_of = scratch.level_of.data();
  ParetoFront result;
  const auto top_begin = scratch.front_begin[batch], top_end = scratch.front_begin[batch + 1];
  result.reserve(top_end - top_begin);
  for (auto top = top_begin; top < top_end; ++top) {
    // The chain of flat micro indices first, so that the configuration is built at its size.
    scratch.chain.clear();
    auto element = top;
    for (std::int64_t b = batch;;) {
      const auto m = static_cast<std::size_t>(scratch.front_micro[element]);
      scratch.chain.push_back(m);
      b -= scratch.batch_of[m];
      if (b == 0) break;
      // The last element of b's front at or below the level: the one best_rest named.
      const auto first =
          scratch.front_level.begin() + static_cast<std::ptrdiff_t>(scratch.front_begin[b]);
      const auto last =
          scratch.front_level.begin() + static_cast<std::ptrdiff_t>(scratch.front_begin[b + 1]);
      element = static_cast<std::size_t>(std::upper_bound(first, last, level_of[m]) -
                                         scratch.front_level.begin()) -
                1;
    }
    Configuration configuration;
    configuration.micro.reserve(scratch.chain.size());
    for (auto m : scratch.chain)
      configuration.micro.push_back(table.candidates[static_cast<std::size_t>(
          scratch.size_of[m])][static_cast<std::size_t>(scratch.candidate_of[m])]);
    result.push_back(std::move(configuration));
  }
  return result;
}

ParetoFront desirable_configurations(const MicroTable& table, FrontScratch& scratch) {
  if (!compute_fronts(table, scratch)) return {};
  return front_of(table, scratch, table.batch);
}

}  // namespace

ParetoFront pareto_prune(std::vector<Configuration> configurations) {
  std::vector<SortKey> keys;
  std::vector<std::size_t> kept;
  non_dominated(
      configurations, [](const Configuration& c) { return c.time_ms(); },
      [](const Configuration& c) { return c.workspace_bytes(); }, keys, kept);
  ParetoFront front;
  front.reserve(kept.size());
  for (auto index : kept) front.push_back(std::move(configurations[index]));
  return front;
}

ParetoFront desirable_configurations(const MicroTable& table) {
  FrontScratch scratch;
  return desirable_configurations(table, scratch);
}

std::vector<ParetoFront> desirable_configurations_by_batch(const MicroTable& table) {
  std::vector<ParetoFront> fronts(static_cast<std::size_t>(std::max<std::int64_t>(table.batch, 0)) +
                                  1);
  if (!fronts.empty()) fronts[0] = {Configuration{}};
  FrontScratch scratch;
  if (!compute_fronts(table, scratch)) return fronts;
  for (std::int64_t b = 1; b <= table.batch; ++b)
    fronts[static_cast<std::size_t>(b)] = front_of(table, scratch, b);
  return fronts;
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
      FrontScratch scratch;
      for (std::size_t i; (i = next.fetch_add(1)) < tables.size();)
        fronts[i] = desirable_configurations(tables[i], scratch);
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
