#include "shim/registry.h"

#include <cctype>
#include <stdexcept>
#include <string_view>

#include "core/memory_store.h"
#include "cudnn/algorithms.h"
#include "cudnn/gpu_fingerprint.h"
#include "cudnn/measuring_account.h"
#include "cudnn/runtime_call_counts.h"
#include "shim/host_backend_loader.h"
#include "shim/log.h"
#include "shim/process_exit.h"
#include "shim/store_source.h"

namespace ucudnn::shim {

namespace {

// What ucudnn's own CUDA calls cost the process, for whoever asked for info: that planning
// paid for its benchmarks, and that running plans cost no allocation or synchronization.
void log_runtime_call_totals() {
  const auto totals = cudnn::runtime_call_totals();
  log(LogLevel::kInfo, "ucudnn's CUDA runtime calls in this process: measuring " +
                           totals.measuring.to_string() + "; otherwise " +
                           totals.other.to_string());
}

// Where the warm-up went: what a first run with an empty database paid to measure.
void log_measuring_account() {
  if (const auto line = cudnn::measuring_account().to_string(); !line.empty())
    log(LogLevel::kInfo, line);
}

void log_at_exit() {
  Registry::instance().warn_about_idle_exclusions();
  Registry::instance().log_planned_kernels();
  log_measuring_account();
  log_runtime_call_totals();
}

}  // namespace

Registry& Registry::instance() {
  static Registry* registry = [] {
    auto* created = new Registry;
    at_exit_of_this_process(log_at_exit);
    return created;
  }();
  return *registry;
}

void Registry::log_planned_kernels() {
  if (!log_enabled(LogLevel::kInfo)) return;
  std::lock_guard lock(mutex_);
  for (const auto& [ordinal, device] : devices_)
    if (const auto line = PlannedKernels::line(
            ordinal, device->planned.summary(cudnn::measuring_account_kernels()));
        !line.empty())
      log(LogLevel::kInfo, line);
}

std::shared_ptr<HandleState> Registry::state(cudnnHandle_t handle) {
  {
    std::shared_lock read(handles_mutex_);
    if (auto found = handles_.find(handle); found != handles_.end()) return found->second;
  }
  std::lock_guard lock(handles_mutex_);
  auto& state = handles_[handle];
  // A handle created before the shim was loaded: the first call is most likely made with
  // its device current.
  if (!state) state = bound_to_current_device(handle);
  return state;
}

void Registry::created(cudnnHandle_t handle) {
  auto state = bound_to_current_device(handle);
  std::lock_guard lock(handles_mutex_);
  handles_[handle] = std::move(state);
  plans_changed();
}

std::shared_ptr<HandleState> Registry::bound_to_current_device(cudnnHandle_t handle) {
  auto state = std::make_shared<HandleState>();
  state->handle = handle;
  const auto& runtime = cudnn::cuda_runtime();
  if (runtime.cudaGetDevice && runtime.cudaGetDevice(&state->device) != cudaSuccess) {
    runtime.cudaGetLastError();
    state->device = 0;
  }
  return state;
}

void Registry::forget(cudnnHandle_t handle) {
  std::shared_ptr<HandleState> state;
  {
    std::lock_guard lock(handles_mutex_);
    auto found = handles_.find(handle);
    if (found == handles_.end()) return;
    state = std::move(found->second);
    handles_.erase(found);
    plans_changed();
  }
  // Wait for a call still running on the handle before its arena goes.
  std::lock_guard wait(state->mutex);
}

void Registry::save_at_exit() {
  if (saving_at_exit_) return;
  saving_at_exit_ = true;
  // Results that a locked or full database could not take yet get a last chance; what still
  // is not in the file is said, so that nothing is lost silently.
  at_exit_of_this_process([] {
    auto& registry = Registry::instance();
    std::lock_guard lock(registry.mutex_);
    std::vector<std::string> unsaved;
    if (registry.store_)
      for (auto& row : registry.store_->confirm_saved()) unsaved.push_back(std::move(row));
    for (auto& store : registry.retired_)
      for (auto& row : store->confirm_saved()) unsaved.push_back(std::move(row));
    if (!unsaved.empty())
      log(LogLevel::kWarning, std::to_string(unsaved.size()) +
                                  " results of this process could not be saved in the benchmark "
                                  "database (see the warnings above), e.g. " +
                                  unsaved.front());
  });
}

BenchmarkStore& Registry::store() {
  std::lock_guard lock(mutex_);
  if (!store_) {
    store_ = open_store(process_settings());
    save_at_exit();
  }
  return *store_;
}

bool Registry::use_database(const std::string& path) {
  auto store = open_store_at(path);
  if (!store) return false;
  std::lock_guard lock(mutex_);
  if (store_) retired_.push_back(std::move(store_));
  store_ = std::move(store);
  save_at_exit();
  return true;
}

Registry::Device& Registry::device(int ordinal) {
  std::lock_guard lock(mutex_);
  auto& device = devices_[ordinal];
  if (!device) {
    device = std::make_unique<Device>();
    auto fingerprint = cudnn::gpu_fingerprint(cudnn::cudnn_api(), cudnn::cuda_runtime(), ordinal);
    if (fingerprint) {
      device->fingerprint = std::move(*fingerprint);
    } else {
      device->fingerprint = {{{"kind", "gpu"}, {"unreadable", fingerprint.error()}}};
      device->unstored = std::make_unique<MemoryStore>();
      warn_once("unreadable-fingerprint:" + std::to_string(ordinal),
                fingerprint.error() + ": its measurements and plans are kept in this process only");
    }
  }
  return *device;
}

HostBackend* Registry::host_backend() {
  std::call_once(host_backend_once_, [this] {
    std::string error;
    host_backend_ = load_host_backend(error);
    if (!host_backend_) warn_once("no-host-backend", "CPU/GPU hybrid is off: " + error);
  });
  return host_backend_;
}

std::shared_ptr<WorkspaceDivisionSession> Registry::division_session(int device,
                                                                     std::uint64_t total,
                                                                     BatchSizePolicy policy) {
  PlannedKernels& account = this->device(device).planned;  // devices live as long as the registry
  std::lock_guard lock(mutex_);
  std::erase_if(divisions_, [](const auto& entry) { return entry.second.expired(); });
  auto& slot = divisions_[{device, total, policy}];
  auto session = slot.lock();
  if (!session) {
    session = std::make_shared<WorkspaceDivisionSession>(total, &account);
    slot = session;
  }
  return session;
}

ExclusionAccount& Registry::exclusion_account() {
  std::lock_guard lock(mutex_);
  if (!exclusion_account_)
    exclusion_account_ = std::make_unique<ExclusionAccount>(process_settings().excluded);
  return *exclusion_account_;
}

namespace {

// Whether a cudnn entry may name a candidate the database never measured (an engine
// UCUDNN_BENCHMARK_LIMIT left out): a legacy algorithm's name, or a pattern that can match an
// engine configuration's ("eng12{k2=1}", "eng3*", "*"). What cannot ("nosuch", "FTT", "egn12")
// is a slip whatever the database holds.
bool may_name_an_unmeasured_candidate(const std::string& entry) {
  const std::string pattern = entry.substr(entry.find(':') + 1);
  const auto as_entry = AlgorithmExclusion::parse("cudnn:" + pattern);
  if (!as_entry) return false;
  for (const Operation operation :
       {Operation::kForward, Operation::kBackwardData, Operation::kBackwardFilter})
    for (const auto& name : cudnn::algorithm_names(operation))
      if (as_entry->excludes("cudnn", name)) return true;
  constexpr std::string_view kEngine = "eng";
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(pattern[i])));
    if (c == '*') return true;
    if (i == kEngine.size()) return c == '?' || std::isdigit(static_cast<unsigned char>(c));
    if (c != '?' && c != kEngine[i]) return false;
  }
  return false;
}

}  // namespace

void Registry::warn_about_idle_exclusions() {
  std::lock_guard lock(mutex_);
  if (!exclusion_account_) return;
  for (const char* backend : {"cudnn", "cpu"}) {
    if (!exclusion_account_->filtered(backend)) continue;
    const bool measured_only = exclusion_account_->noted_from_database(backend);
    for (const auto& entry : exclusion_account_->entries_that_excluded_nothing(backend))
      if (!(measured_only && std::string_view(backend) == "cudnn" &&
            may_name_an_unmeasured_candidate(entry)))
        warn_once("idle-exclusion:" + entry,
                  "UCUDNN_EXCLUDE_ALGORITHMS: '" + entry +
                      "' matched none of the candidates of the kernels planned in this process "
                      "(of those run from stored plans, the ones the database has measurements "
                      "of); check its spelling (`ucudnn db export` lists the names measured)");
  }
}

const AlgorithmExclusion& Registry::deterministic_exclusion(const AlgorithmExclusion& base,
                                                            Operation operation) {
  std::lock_guard lock(mutex_);
  auto& slot = deterministic_exclusions_[{base.to_string(), operation}];
  if (!slot) {
    std::string text = base.to_string();
    for (const auto& name : cudnn::algorithm_names(operation)) {
      const auto value = cudnn::algorithm_value(operation, name);
      if (!value || cudnn::is_deterministic(operation, *value)) continue;
      if (!text.empty()) text.push_back(',');
      text.append("cudnn:").append(name);
    }
    auto parsed = AlgorithmExclusion::parse(text);
    if (!parsed)  // cannot happen with cuDNN's names; never silently less strict
      throw std::runtime_error("the deterministic algorithm exclusion '" + text +
                               "' does not parse: " + parsed.error());
    slot = std::make_unique<AlgorithmExclusion>(std::move(parsed).value());
  }
  return *slot;
}

}  // namespace ucudnn::shim
