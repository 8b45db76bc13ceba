#include "cudnn/measuring_account.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#include "core/text.h"
#include "cudnn/real_call_clock.h"

namespace ucudnn::cudnn {

namespace {

// Finalizations over kSlowFinalizeNs. Trivially destructible (a thread's record outlives no
// exit handler that may still plan).
struct SlowPlans {
  std::uint64_t count = 0, total_ns = 0, slowest_ns = 0;
  char slowest[160] = {};  // "cudnn:eng12{k2=1} at 16 images", cut where longer

  void add(std::uint64_t ns, const EngineName& configuration, std::int64_t images) {
    ++count;
    total_ns += ns;
    if (ns <= slowest_ns) return;
    slowest_ns = ns;
    std::snprintf(slowest, sizeof slowest, "cudnn:%s at %lld images",
                  configuration.to_string().c_str(), static_cast<long long>(images));
  }
  void add(const SlowPlans& other) {
    count += other.count;
    total_ns += other.total_ns;
    if (other.slowest_ns <= slowest_ns) return;
    slowest_ns = other.slowest_ns;
    std::memcpy(slowest, other.slowest, sizeof slowest);
  }
};

// What one MeasuringTime gathered on its thread, added to the account when it ends.
struct Gathered {
  bool open = false;
  std::uint64_t phase_ns[kMeasuringPhases] = {};
  std::uint64_t heuristics_queries = 0, plans = 0, pairs = 0, stopped_early = 0, ungated = 0;
  std::uint64_t gate_timeouts = 0;
  SlowPlans slow;
};
thread_local Gathered gathered;
// Whether this thread's last MeasuringTime measured and no database write was counted since.
thread_local bool writes_pending = false;

// Process-wide; measuring is slow, so a lock per kernel measured costs nothing, and plans are
// built outside measuring once per kernel and limit.
struct Account {
  std::mutex mutex;
  std::set<std::string> kernels;
  std::uint64_t total_ns = 0;
  Gathered sum;
  std::uint64_t outside_plans = 0, outside_plans_ns = 0;
  SlowPlans outside_slow;
  std::uint64_t compared = 0, compared_ns = 0, compared_ungated = 0, compared_gate_timeouts = 0;
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

std::string timeouts(std::uint64_t n) {
  return counted(n, "gate") + " timed out";
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
  writes_pending = true;
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
  a.sum.ungated += mine.ungated;
  a.sum.gate_timeouts += mine.gate_timeouts;
  a.sum.slow.add(mine.slow);
}

DatabaseWriteTime::DatabaseWriteTime() : start_(RealCallClock::now()) {}

DatabaseWriteTime::~DatabaseWriteTime() {
  const std::uint64_t elapsed = RealCallClock::now() - start_;
  const int phase = static_cast<int>(MeasuringPhase::kDatabaseWrites);
  if (gathered.open) {
    gathered.phase_ns[phase] += elapsed;
    return;
  }
  if (!std::exchange(writes_pending, false)) return;
  // Past the kernel's MeasuringTime: its measuring took this long more.
  Account& a = account();
  std::lock_guard lock(a.mutex);
  a.total_ns += elapsed;
  a.sum.phase_ns[phase] += elapsed;
}

void count_heuristics_query() {
  ++gathered.heuristics_queries;
}
void count_finalized_plan(std::uint64_t nanoseconds, const EngineName& configuration,
                          std::int64_t images) {
  const bool slow = nanoseconds > kSlowFinalizeNs;
  if (gathered.open) {
    ++gathered.plans;
    if (slow) gathered.slow.add(nanoseconds, configuration, images);
    return;
  }
  Account& a = account();
  std::lock_guard lock(a.mutex);
  ++a.outside_plans;
  a.outside_plans_ns += nanoseconds;
  if (slow) a.outside_slow.add(nanoseconds, configuration, images);
}
void count_measured_pair(bool stopped, bool ungated) {
  ++gathered.pairs;
  if (stopped) ++gathered.stopped_early;
  if (ungated) ++gathered.ungated;
}

void count_gate_timeouts(int timeouts) {
  gathered.gate_timeouts += static_cast<std::uint64_t>(std::max(timeouts, 0));
}

void count_compared_plan(std::uint64_t nanoseconds, bool ungated, int gate_timeouts) {
  Account& a = account();
  std::lock_guard lock(a.mutex);
  ++a.compared;
  a.compared_ns += nanoseconds;
  if (ungated) ++a.compared_ungated;
  a.compared_gate_timeouts += static_cast<std::uint64_t>(std::max(gate_timeouts, 0));
}

std::set<std::string> measuring_account_kernels() {
  Account& sum = account();
  std::lock_guard lock(sum.mutex);
  return sum.kernels;
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
  a.ungated = sum.sum.ungated;
  a.gate_timeouts = sum.sum.gate_timeouts;
  a.outside_plans = sum.outside_plans;
  a.outside_plans_s = static_cast<double>(sum.outside_plans_ns) * 1e-9;
  SlowPlans slow = sum.sum.slow;
  slow.add(sum.outside_slow);
  a.slow_plans = slow.count;
  a.slow_plans_s = static_cast<double>(slow.total_ns) * 1e-9;
  a.slowest_s = static_cast<double>(slow.slowest_ns) * 1e-9;
  a.slowest = slow.slowest;
  a.compared_plans = sum.compared;
  a.compared_s = static_cast<double>(sum.compared_ns) * 1e-9;
  a.compared_ungated = sum.compared_ungated;
  a.compared_gate_timeouts = sum.compared_gate_timeouts;
  return a;
}

std::string MeasuringAccount::to_string() const {
  std::string line;
  const auto part = [&](const std::string& text) { line += (line.empty() ? "" : "; ") + text; };
  if (kernels > 0) {
    const auto phase = [&](MeasuringPhase p) { return phase_s[static_cast<int>(p)]; };
    double parts = 0;
    for (double s : phase_s) parts += s;
    part("measuring " + counted(kernels, "kernel") + " took " + seconds(total_s) +
         ": running and timing " + counted(pairs, "(candidate, micro-batch) pair") + " " +
         seconds(phase(MeasuringPhase::kRuns)) + " (" + std::to_string(stopped_early) +
         " stopped early), building plans " + seconds(phase(MeasuringPhase::kPlans)) + " (" +
         std::to_string(plans) + " finalized), cuDNN's heuristics " +
         seconds(phase(MeasuringPhase::kHeuristics)) + " (" +
         counted(heuristics_queries, "query", "queries") + "), allocating " +
         seconds(phase(MeasuringPhase::kAllocation)) + ", writing to the database " +
         seconds(phase(MeasuringPhase::kDatabaseWrites)) + ", the rest " +
         seconds(std::max(0.0, total_s - parts)));
  }
  if (outside_plans > 0)
    part("outside measuring, " + counted(outside_plans, "plan") + " finalized in " +
         seconds(outside_plans_s));
  if (slow_plans > 0)
    part(counted(slow_plans, "finalization") + " took over " +
         std::to_string(kSlowFinalizeNs / 1'000'000) + " ms, " + seconds(slow_plans_s) +
         " in all, the slowest " + slowest + " (" + seconds(slowest_s) + ")");
  if (ungated > 0)
    part(counted(ungated, "pair") +
         " timed without holding the stream, their times with the host's issuing in them (" +
         timeouts(gate_timeouts) + ")");
  if (compared_plans > 0)
    part("comparing " + std::to_string(compared_plans) + " of the application's graph " +
         (compared_plans == 1 ? "plan" : "plans") + " with ucudnn's took " + seconds(compared_s) +
         (compared_ungated > 0
              ? " (" + std::to_string(compared_ungated) + " timed without holding the stream, " +
                    timeouts(compared_gate_timeouts) + ")"
              : ""));
  return line;
}

}  // namespace ucudnn::cudnn
