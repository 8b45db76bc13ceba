#pragma once
// Where benchmark results and plans outlive the process (db/ implements it with SQLite;
// tests and the shim's default use MemoryStore). The planner depends on this interface
// only. Implementations are thread-safe and never throw: a store that cannot read or write
// answers "not found" and drops writes (it has warned once already).
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/benchmarker.h"
#include "core/configuration.h"
#include "core/limit_range.h"

namespace ucudnn {

// One benchmark result: the micro-batch kernel (its key has N = micro_batch), an algorithm
// by stable name, and the measurement, or "not supported" (measurement empty).
struct MeasurementRecord {
  std::string fingerprint;  // DeviceFingerprint::to_string()
  KernelKey kernel;         // at the micro-batch size
  std::string backend;      // "cudnn", "cpu"
  std::string algorithm;
  std::optional<Measurement> measurement;
  std::int64_t measured_at = 0;  // Unix seconds; the store fills it in when 0
};

// What a plan answers: one kernel (WR) or a whole network (WD) on one device, under a
// policy, limits and mode.
struct PlanKey {
  std::string fingerprint;
  std::string subject;                // KernelKey::to_string() for WR; a network key for WD
  std::string policy;                 // name_of(BatchSizePolicy)
  std::uint64_t workspace_limit = 0;  // per kernel (WR) or total (WD)
  std::string mode;                   // "WR" or "WD"
  friend bool operator==(const PlanKey&, const PlanKey&) = default;
};

class BenchmarkStore {
 public:
  virtual ~BenchmarkStore() = default;

  // nullopt: never measured here. A record whose measurement is empty: measured, unsupported.
  virtual std::optional<MeasurementRecord> find_measurement(const std::string& fingerprint,
                                                            const KernelKey& micro_kernel,
                                                            const std::string& backend,
                                                            const std::string& algorithm) = 0;
  // The algorithms with a measurement (or "not supported") on `backend` at any of
  // `micro_kernels` (KernelKey::to_string() texts), sorted: which candidates a device offered
  // for a kernel, when the device that measured them is not here (GPU engine configurations
  // depend on the GPU and its cuDNN).
  virtual std::vector<std::string> measured_algorithms(
      const std::string& fingerprint, const std::string& backend,
      const std::set<std::string>& micro_kernels) = 0;
  // All in one transaction.
  virtual void put_measurements(const std::vector<MeasurementRecord>& records) = 0;

  // A WR plan is one configuration; a WD plan one configuration per kernel, in the order
  // the network key lists them. find_plan answers with a plan whose range contains
  // key.workspace_limit.
  virtual std::optional<std::vector<Configuration>> find_plan(const PlanKey& key) = 0;
  // `valid` holds key.workspace_limit; a stored plan starting at the same limit is replaced.
  virtual void put_plan(const PlanKey& key, const std::vector<Configuration>& plan,
                        const LimitRange& valid) = 0;
  void put_plan(const PlanKey& key, const std::vector<Configuration>& plan) {
    put_plan(key, plan, LimitRange::exactly(key.workspace_limit));
  }
  // The subjects with a plan for key's device, policy and mode whose range contains
  // key.workspace_limit (key.subject is ignored), sorted: how the shim finds a division made
  // offline before it has seen the whole network.
  virtual std::vector<std::string> plan_subjects(const PlanKey& key) = 0;

  // Saves what could not be saved before (a lock held by another process, a full disk), and
  // what held saves keep. Stores that write through have nothing to do.
  virtual void flush() {}

  // While a thread holds saves (hold_saves() called more often than release_saves() on it),
  // what it puts is found at once but written to the file together when its last hold ends,
  // or at flush(): a kernel's planning then costs one transaction, not one per measurement
  // (each a synchronous commit: milliseconds, thousands of them in a network's first run).
  // Holds are per thread: another thread's puts are written as they come (with whatever held
  // rows wait then). A process killed meanwhile loses what was held. Use HeldSaves. Stores
  // that write nothing ignore it.
  virtual void hold_saves() {}
  virtual void release_saves() {}

  // Flushes, then reads back from the file every row this store saved, and writes again any
  // that is not there (another process set the file aside, or replaced it). Returns what is
  // still not saved, one line per row (empty: everything is in the file). A tool that stores
  // results calls it before it says it succeeded. Stores that keep nothing have nothing to do,
  // nor has one whose file could not be written from its open on (it said so then).
  virtual std::vector<std::string> confirm_saved() { return {}; }
};

// Holds a store's saves for its lifetime (BenchmarkStore::hold_saves).
class HeldSaves {
 public:
  explicit HeldSaves(BenchmarkStore& store) : store_(store) { store_.hold_saves(); }
  // Never throws: it may run while a planning's error unwinds, which its caller recovers from.
  ~HeldSaves() {
    try {
      store_.release_saves();
    } catch (...) {
      // What was held stays queued: the store writes it at its next write, flush or close.
    }
  }
  HeldSaves(const HeldSaves&) = delete;
  HeldSaves& operator=(const HeldSaves&) = delete;

 private:
  BenchmarkStore& store_;
};

}  // namespace ucudnn
