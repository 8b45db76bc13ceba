#pragma once
// Where the host's time goes while ucudnn measures candidates on a GPU, for the line it logs at
// exit (UCUDNN_LOG_LEVEL=info): a job's first run with an empty database pays for it, and what
// the warm-up costs beside a framework's own autotuning is read off this line. Measuring a
// kernel (MeasuringTime, around the whole of it) splits into cuDNN's heuristics, building and
// finalizing the candidates' plans (or sizing a legacy algorithm's workspace), allocating their
// buffers, running and timing them, and writing what was measured to the database (whose
// commit may come after the kernel's MeasuringTime: DatabaseWriteTime); the rest is ucudnn's own
// (reading the database, the plan).
// Each thread gathers into its own record while it measures; the record joins a process-wide
// account, under a lock, when the kernel's measuring ends (several threads may measure, each on
// its own device).
#include <cstdint>
#include <set>
#include <string>

#include "core/engine_name.h"

namespace ucudnn::cudnn {

enum class MeasuringPhase { kHeuristics, kPlans, kAllocation, kRuns, kDatabaseWrites };
inline constexpr int kMeasuringPhases = 5;

// Adds the wall time it encloses to a phase of the thread's MeasuringTime (none: not counted).
class PhaseTime {
 public:
  explicit PhaseTime(MeasuringPhase phase);
  ~PhaseTime();
  PhaseTime(const PhaseTime&) = delete;
  PhaseTime& operator=(const PhaseTime&) = delete;

 private:
  MeasuringPhase phase_;
  std::uint64_t start_;
};

// Encloses the measuring of one kernel (its KernelKey text) on this thread; adds its wall time
// and its phases to the account where it measured a pair (a kernel answered from the database
// costs no warm-up). Does not nest.
class MeasuringTime {
 public:
  explicit MeasuringTime(std::string kernel);
  ~MeasuringTime();
  MeasuringTime(const MeasuringTime&) = delete;
  MeasuringTime& operator=(const MeasuringTime&) = delete;

 private:
  std::string kernel_;
  std::uint64_t start_;
};

// Adds the wall time it encloses (a store's commit, or its wait for another process's lock) to
// the database writes of measuring: of the thread's MeasuringTime where one is open, else of the
// last one that measured on this thread where nothing was counted since (a kernel's planning
// holds its saves past its measuring: one transaction for its measurements and its plan).
// Elsewhere (a kernel answered from the database) nothing is counted.
class DatabaseWriteTime {
 public:
  DatabaseWriteTime();
  ~DatabaseWriteTime();
  DatabaseWriteTime(const DatabaseWriteTime&) = delete;
  DatabaseWriteTime& operator=(const DatabaseWriteTime&) = delete;

 private:
  std::uint64_t start_;
};

// Counted with the thread's MeasuringTime, as the phases.
void count_heuristics_query();
// One execution plan finalized (engine_plan.h), `nanoseconds` long, of `configuration` at a
// batch of `images`: counted with the thread's MeasuringTime where one is open, else as one
// outside measuring (a plan made to run, or one checking a stored plan's workspace). A finalize
// that compiles its kernels (cuDNN's runtime-compiled engines) takes 100 ms and more where others
// take a millisecond: those over kSlowFinalizeNs are told apart.
void count_finalized_plan(std::uint64_t nanoseconds, const EngineName& configuration,
                          std::int64_t images);
inline constexpr std::uint64_t kSlowFinalizeNs = 50'000'000;
// One (candidate, micro-batch) pair measured; `stopped_early` where the early stop cut it;
// `ungated` where a run was timed without holding the stream (event_timer.h).
void count_measured_pair(bool stopped_early, bool ungated = false);
// Gates that opened by themselves (event_timer.h), each a run timed again.
void count_gate_timeouts(int timeouts);

// One of the application's graph plans timed beside ucudnn's plan for the kernel, to choose
// which runs (shim/backend/application_plan.h; a framework that autotunes has every engine
// configuration it finalizes compared), the two timings `nanoseconds` long; `ungated`: a repeat
// of either timed without holding the stream; `gate_timeouts`: gates that opened by themselves.
void count_compared_plan(std::uint64_t nanoseconds, bool ungated, int gate_timeouts);

struct MeasuringAccount {
  std::uint64_t kernels = 0;  // distinct kernels measured
  double total_s = 0;
  double phase_s[kMeasuringPhases] = {};
  std::uint64_t heuristics_queries = 0, plans = 0, pairs = 0, stopped_early = 0, ungated = 0;
  std::uint64_t gate_timeouts = 0;
  // Outside measuring: the plans made to run (the chosen configurations' micro-batches), and
  // those built to check a stored plan's workspace.
  std::uint64_t outside_plans = 0;
  double outside_plans_s = 0;
  // Finalizations over kSlowFinalizeNs, in measuring and outside it, and the slowest.
  std::uint64_t slow_plans = 0;
  double slow_plans_s = 0, slowest_s = 0;
  std::string slowest;  // "cudnn:eng12{k2=1} at 16 images"
  // The application's graph plans compared with ucudnn's (count_compared_plan).
  std::uint64_t compared_plans = 0, compared_ungated = 0, compared_gate_timeouts = 0;
  double compared_s = 0;
  // "measuring 68 kernels took 12.31 s: running and timing 3675 (candidate, micro-batch) pairs
  // 7.10 s (220 stopped early), building plans 3.20 s (4102 finalized), cuDNN's heuristics
  // 1.50 s (68 queries), allocating 0.21 s, writing to the database 0.04 s, the rest 0.26 s;
  // outside measuring, 161 plans
  // finalized in 0.05 s; 14 finalizations took over 50 ms, 2.10 s in all, the slowest
  // cudnn:eng12{k2=1} at 16 images (0.41 s); 3 pairs timed without holding the stream, their
  // times with the host's issuing in them (3 gates timed out); comparing 2270 of the
  // application's graph plans with ucudnn's took 3.10 s (4 timed without holding the stream, 3
  // gates timed out)", each part where there is one; empty when there is none.
  std::string to_string() const;
};

MeasuringAccount measuring_account();
// The kernels (KernelKey text) measured so far in this process.
std::set<std::string> measuring_account_kernels();

}  // namespace ucudnn::cudnn
