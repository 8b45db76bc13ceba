#pragma once
// The one process-wide registry of the shim: the state of each cuDNN handle, the store of
// benchmarks and plans, and per GPU its fingerprint and benchmarking lock. Created on first
// use and deliberately never destroyed: the application may call cuDNN from its own static
// destructors, after ours would have run.
#include <cudnn.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/algorithm_exclusion.h"
#include "core/benchmark_store.h"
#include "core/device_fingerprint.h"
#include "core/host_backend.h"
#include "core/hybrid_split.h"
#include "cudnn/event_timer.h"
#include "cudnn/heuristics_cache.h"
#include "shim/application_engines.h"
#include "shim/backend/descriptor_table.h"
#include "shim/handle_state.h"
#include "shim/planned_kernels.h"

namespace ucudnn::shim {

class Registry {
 public:
  static Registry& instance();

  std::shared_ptr<HandleState> state(cudnnHandle_t handle);  // created on first use
  // At cudnnCreate: a fresh state bound to the current device, as cuDNN binds the handle
  // (the address may be a destroyed handle's, and the first convolution call may come when
  // another device is current).
  void created(cudnnHandle_t handle);
  void forget(cudnnHandle_t handle);

  BenchmarkStore& store();  // the first call also arranges a last save at exit
  // Replaces the store by the database at `path` (the options API); false if it cannot open.
  bool use_database(const std::string& path);

  // A GPU: its fingerprint and where its measurements and plans go. A device whose
  // fingerprint cannot be read keeps them in this process only (`unstored`): under a
  // made-up fingerprint they would be mixed with another machine's.
  struct Device {
    DeviceFingerprint fingerprint;
    std::unique_ptr<BenchmarkStore> unstored;  // set when the fingerprint is unreadable
    std::mutex benchmark_mutex;
    // The host-device link for CPU/GPU hybrid, probed once under benchmark_mutex (nullopt
    // inside: the probe failed).
    std::optional<std::optional<HostLink>> host_link;
    // The fastest graph API execution plan of the application measured for each convolution
    // (its kernel key, whatever the math type), under benchmark_mutex: frameworks that
    // autotune build several.
    LruMap<std::string, double> fastest_application_plan_ms{kKernelsPerHandle};
    // What the application's execution plans run: candidates for the kernels it plans.
    ApplicationEngines application_engines;
    cudnn::HeuristicsCache heuristics;  // cuDNN's heuristics, asked once per kernel
    cudnn::Gating gating;    // whether measuring times behind a gate, under benchmark_mutex
    PlannedKernels planned;  // for the line logged at exit
  };
  Device& device(int ordinal);
  // The WD session of a device for a total and batch-size policy, shared by every handle that
  // asks for the same: one arena per device however many handles the application uses. It
  // lives while a handle holds it.
  // One line per device that planned anything (planned_kernels.h), at info.
  void log_planned_kernels();
  std::shared_ptr<WorkspaceDivisionSession> division_session(int device, std::uint64_t total,
                                                             BatchSizePolicy policy);
  BenchmarkStore& store_for(Device& device) { return device.unstored ? *device.unstored : store(); }

  // The CPU backend for CPU/GPU hybrid, loaded on first use; nullptr (one warning) when it
  // cannot be.
  HostBackend* host_backend();

  // `base` and the operation's nondeterministic cuDNN algorithms: what a kernel that must run
  // deterministically may not use. Built once per (base, operation) and kept for the process.
  const AlgorithmExclusion& deterministic_exclusion(const AlgorithmExclusion& base,
                                                    Operation operation);

  // What UCUDNN_EXCLUDE_ALGORITHMS did to the candidate lists of every kernel measured in the
  // process: at exit, an entry that excluded none of them is named (a mistyped name protects
  // nothing, silently).
  ExclusionAccount& exclusion_account();
  void warn_about_idle_exclusions();

  // Changes whenever a handle's plans may (a plan reported to the application, options set, a
  // handle created or destroyed): what per-thread caches of plans (legacy_call_cache.h) check.
  std::uint64_t plans_epoch() const { return plans_epoch_.load(std::memory_order_acquire); }
  void plans_changed() { plans_epoch_.fetch_add(1, std::memory_order_acq_rel); }

  // The graph API's descriptors as the application set them (backend/descriptor_table.h).
  backend::DescriptorTable& backend_descriptors() { return backend_descriptors_; }

 private:
  Registry() = default;
  static std::shared_ptr<HandleState> bound_to_current_device(cudnnHandle_t handle);
  std::mutex mutex_;                 // the store and the devices
  std::shared_mutex handles_mutex_;  // every call looks its handle up: readers share it
  std::unordered_map<cudnnHandle_t, std::shared_ptr<HandleState>> handles_;
  std::unique_ptr<BenchmarkStore> store_;
  // Stores ucudnnSetDatabase replaced: a call in flight on another thread may still use one, and
  // what they could not save yet gets its last chance at exit too.
  std::vector<std::unique_ptr<BenchmarkStore>> retired_;
  // Once a store exists: the last chance for its results at exit (under mutex_).
  void save_at_exit();
  bool saving_at_exit_ = false;
  std::map<int, std::unique_ptr<Device>> devices_;
  std::map<std::tuple<int, std::uint64_t, BatchSizePolicy>, std::weak_ptr<WorkspaceDivisionSession>>
      divisions_;
  std::once_flag host_backend_once_;
  HostBackend* host_backend_ = nullptr;
  std::map<std::pair<std::string, Operation>, std::unique_ptr<AlgorithmExclusion>>
      deterministic_exclusions_;                         // under mutex_
  std::unique_ptr<ExclusionAccount> exclusion_account_;  // under mutex_
  backend::DescriptorTable backend_descriptors_;
  std::atomic<std::uint64_t> plans_epoch_{0};
};

}  // namespace ucudnn::shim
