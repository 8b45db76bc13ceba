#include "cudnn/measuring_account.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <utility>

#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

namespace {

// What one MeasuringTime gathered on its thread, added to the account when it ends.
struct Gathered {
  bool open = false;
  std::uint64_t phase_ns[kMeasuringPhases] = {};
  std::uint64_t heuristics_queries = 0, plans = 0, pairs = 0, stopped_early = 0;
};
thread_local Gathered gathered;

// Process-wide; measuring is slow, so a lock per kernel measured costs nothing.
struct Account {
  std::mutex mutex;
  std::set<std::string> kernels;
  std::uint64_t total_ns = 0;
  Gathered sum;
};

Account& account() {
  // Never destroyed: read at exit, after static destructors may have run.
  static Account& account = *new Account;
  return account;
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

}  // namespace

PhaseTime::PhaseTime(MeasuringPhase phase) : phase_(phase), start_(RealCallClock::now()) {}
PhaseTime::~PhaseTime() {
  if (gathered.open) gathered.phase_ns[static_cast<int>(phase_)] += RealCallClock::now() - start_;
}

MeasuringTime::MeasuringTime(std::string kernel)
    : kernel_(std::move(kernel)), start_(RealCallClock::now()) {
  gathered = Gathered{};
  gathered.open = true;
}

MeasuringTime::~MeasuringTime() {
  const Gathered mine = std::exchange(gathered, Gathered{});
  if (mine.pairs == 0) return;
  const std::uint64_t elapsed = RealCallClock::now() - start_;
  Account& a = account();
  std::lock_guard lock(a.mutex);
  a.kernels.insert(kernel_);
  a.total_ns += elapsed;
  for (int i = 0; i < kMeasuringPhases; ++i) a.sum.phase_ns[i] += mine.phase_ns[i];
  a.sum.heuristics_queries += mine.heuristics_queries;
  a.sum.plans += mine.plans;
  a.sum.pairs += mine.pairs;
  a.sum.stopped_early += mine.stopped_early;
}

void count_heuristics_query() {
  ++gathered.heuristics_queries;
}
void count_finalized_plan() {
  ++gathered.plans;
}
void count_measured_pair(bool stopped) {
  ++gathered.pairs;
  if (stopped) ++gathered.stopped_early;
}

MeasuringAccount measuring_account() {
  Account& sum = account();
  std::lock_guard lock(sum.mutex);
  MeasuringAccount a;
  a.kernels = sum.kernels.size();
  a.total_s = static_cast<double>(sum.total_ns) * 1e-9;
  for (int i = 0; i < kMeasuringPhases; ++i)
    a.phase_s[i] = static_cast<double>(sum.sum.phase_ns[i]) * 1e-9;
  a.heuristics_queries = sum.sum.heuristics_queries;
  a.plans = sum.sum.plans;
  a.pairs = sum.sum.pairs;
  a.stopped_early = sum.sum.stopped_early;
  return a;
}

std::string MeasuringAccount::to_string() const {
  if (kernels == 0) return "";
  const auto phase = [&](MeasuringPhase p) { return phase_s[static_cast<int>(p)]; };
  double parts = 0;
  for (double s : phase_s) parts += s;
  return "measuring " + std::to_string(kernels) + " kernels took " + seconds(total_s) +
         ": running and timing " + std::to_string(pairs) + " (candidate, micro-batch) pairs " +
         seconds(phase(MeasuringPhase::kRuns)) + " (" + std::to_string(stopped_early) +
         " stopped early), building plans " + seconds(phase(MeasuringPhase::kPlans)) + " (" +
         std::to_string(plans) + " finalized), cuDNN's heuristics " +
         seconds(phase(MeasuringPhase::kHeuristics)) + " (" + std::to_string(heuristics_queries) +
         " queries), allocating " + seconds(phase(MeasuringPhase::kAllocation)) + ", the rest " +
         seconds(std::max(0.0, total_s - parts));
}

}  // namespace ucudnn::cudnn
