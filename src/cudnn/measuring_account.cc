#include "cudnn/measuring_account.h"

#include <algorithm>
#include <atomic>
#include <cstdio>

#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

namespace {

// Constant-initialized and never destroyed, as the runtime call counts.
std::atomic<std::uint64_t> total_ns{0}, kernels{0};
std::atomic<std::uint64_t> phase_ns[kMeasuringPhases];
std::atomic<std::uint64_t> heuristics_queries{0}, plans{0}, pairs{0}, stopped_early{0};
thread_local std::uint64_t pairs_on_this_thread = 0;

void add(std::atomic<std::uint64_t>& counter, std::uint64_t value) {
  counter.fetch_add(value, std::memory_order_relaxed);
}

std::uint64_t load(const std::atomic<std::uint64_t>& counter) {
  return counter.load(std::memory_order_relaxed);
}

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", s);
  return text;
}

}  // namespace

PhaseTime::PhaseTime(MeasuringPhase phase) : phase_(phase), start_(RealCallClock::now()) {}
PhaseTime::~PhaseTime() {
  add(phase_ns[static_cast<int>(phase_)], RealCallClock::now() - start_);
}

MeasuringTime::MeasuringTime() : start_(RealCallClock::now()), pairs_(pairs_on_this_thread) {}
MeasuringTime::~MeasuringTime() {
  if (pairs_on_this_thread == pairs_) return;  // all stored: nothing was measured
  add(total_ns, RealCallClock::now() - start_);
  add(kernels, 1);
}

void count_heuristics_query() {
  add(heuristics_queries, 1);
}
void count_finalized_plan() {
  add(plans, 1);
}
void count_measured_pair(bool stopped) {
  ++pairs_on_this_thread;
  add(pairs, 1);
  if (stopped) add(stopped_early, 1);
}

MeasuringAccount measuring_account() {
  MeasuringAccount a;
  a.kernels = load(kernels);
  a.total_s = static_cast<double>(load(total_ns)) * 1e-9;
  for (int i = 0; i < kMeasuringPhases; ++i)
    a.phase_s[i] = static_cast<double>(load(phase_ns[i])) * 1e-9;
  a.heuristics_queries = load(heuristics_queries);
  a.plans = load(plans);
  a.pairs = load(pairs);
  a.stopped_early = load(stopped_early);
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
         " stopped early), building " + std::to_string(plans) + " plans " +
         seconds(phase(MeasuringPhase::kPlans)) + ", cuDNN's heuristics " +
         seconds(phase(MeasuringPhase::kHeuristics)) + " (" + std::to_string(heuristics_queries) +
         " queries), allocating " + seconds(phase(MeasuringPhase::kAllocation)) + ", the rest " +
         seconds(std::max(0.0, total_s - parts));
}

}  // namespace ucudnn::cudnn
