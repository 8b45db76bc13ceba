#include "shim/workspace_division_session.h"

#include "core/workspace_division.h"
#include "cudnn/current_device.h"
#include "shim/log.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

WorkspaceDivisionSession::Entry& WorkspaceDivisionSession::entry(const KernelIdentity& kernel) {
  auto [it, inserted] = entries_.try_emplace(kernel);
  if (inserted) {
    order_.push_back(kernel);
    // A new kernel: learn a new round; the kernels with segments keep them meanwhile.
    learning_ = true;
    anchor_.reset();
    for (auto& [identity, e] : entries_) e.runs = 0;
  }
  return it->second;
}

void WorkspaceDivisionSession::note(const KernelIdentity& kernel) {
  entry(kernel);
}

void WorkspaceDivisionSession::give_up(const std::string& why) {
  given_up_ = true;
  for (auto& [identity, e] : entries_) e.divided.reset();
  keep_if_captured();
  arena_.reset();
  warn_once("wd-given-up", "workspace division (UCUDNN_TOTAL_WORKSPACE_SIZE=" +
                               format_byte_size(total_) + ") is off for this handle: " + why +
                               "; planning each kernel in the application's workspace (WR)");
}

std::optional<Configuration> WorkspaceDivisionSession::reported_configuration(
    const KernelIdentity& kernel, const PlannerContext& context) {
  Entry& e = entry(kernel);
  if (e.divided) return e.divided->configuration();
  if (!e.best_within_total) {
    auto plan = plan_reuse(context, kernel.key, total_);
    if (!plan) return std::nullopt;
    e.best_within_total = *plan;
  }
  return e.best_within_total;
}

bool WorkspaceDivisionSession::solve(const PlannerContext& context) {
  std::vector<KernelCandidates> candidates;
  std::vector<ParetoFront> fronts;
  std::vector<KernelIdentity> planned;
  for (const auto& kernel : order_) {
    auto front = desirable_set(context, kernel.key, total_);
    if (!front) {
      // Left out: it runs within the application's workspace, the others are divided.
      warn_once("wd-left-out:" + kernel.key.to_string(),
                "workspace division leaves out " + kernel.key.to_string() + ": " + front.error());
      continue;
    }
    // Time counts once per run in an iteration: a kernel run twice weighs twice.
    ParetoFront weighted = *front;
    const int weight = std::max(1, entries_[kernel].runs);
    for (auto& configuration : weighted)
      for (auto& m : configuration.micro) m.time_ms *= weight;
    candidates.push_back({kernel.key.to_string(), std::move(weighted)});
    fronts.push_back(std::move(*front));
    planned.push_back(kernel);
  }
  auto division = plan_workspace_division(candidates, total_);
  if (!division) {
    give_up(division.error());
    return false;
  }
  // The old arena goes first: cudaFree waits for the work still using its segments.
  for (auto& [identity, e] : entries_) e.divided.reset();
  keep_if_captured();
  arena_.reset();
  {
    const cudnn::CurrentDevice on(context.runtime, context.device);
    arena_ = cudnn::DeviceBuffer::allocate(context.runtime, division->workspace_bytes);
  }
  if (!arena_) {
    give_up("cannot allocate the " + format_byte_size(division->workspace_bytes) + " arena");
    return false;
  }
  std::vector<Configuration> chosen;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    Entry& e = entries_[planned[i]];
    chosen.push_back(fronts[i][division->choice[i]]);
    auto executor = std::make_shared<cudnn::PlanExecutor>(context.api, context.handle,
                                                          planned[i].key, chosen.back());
    // Segments are sized by the measurements; a kernel needing more than its measurement
    // said (a poisoned database) must not spill into its neighbour's.
    if (executor->workspace_bytes() > chosen.back().workspace_bytes()) continue;
    e.divided = std::move(executor);
    e.offset = division->offsets[i];
  }
  learning_ = false;
  std::string network;
  for (const auto& kernel : planned) network += kernel.key.hash_hex() + ";";
  context.store.put_plan({context.fingerprint.to_string(), "network:" + network,
                          std::string(name_of(context.policy)), total_, "WD"},
                         chosen);
  log(LogLevel::kInfo, "workspace division of " + std::to_string(planned.size()) +
                           " kernels: " + std::to_string(division->time_ms) + " ms in " +
                           format_byte_size(division->workspace_bytes) + " of " +
                           format_byte_size(total_));
  return true;
}

void WorkspaceDivisionSession::keep_if_captured() {
  // Deliberately never freed: a graph may be replayed at any time for the rest of the process.
  if (arena_captured_ && arena_) new cudnn::DeviceBuffer(std::move(*arena_));
  arena_captured_ = false;
}

WorkspaceDivisionSession::~WorkspaceDivisionSession() {
  keep_if_captured();
}

std::optional<WorkspaceDivisionSession::Placement> WorkspaceDivisionSession::captured_placement(
    const KernelIdentity& kernel) {
  if (given_up_ || learning_) return std::nullopt;
  auto found = entries_.find(kernel);
  if (found == entries_.end() || !found->second.divided || !arena_) return std::nullopt;
  arena_captured_ = true;
  const Entry& e = found->second;
  return Placement{e.divided.get(), static_cast<char*>(arena_->data()) + e.offset,
                   static_cast<std::size_t>(e.divided->workspace_bytes())};
}

std::optional<WorkspaceDivisionSession::Placement> WorkspaceDivisionSession::place(
    const KernelIdentity& kernel, const PlannerContext& context) {
  if (given_up_) return std::nullopt;
  Entry* e = &entry(kernel);
  if (learning_) {
    if (anchor_ && *anchor_ == kernel && e->runs > 0) {
      if (!solve(context)) return std::nullopt;
      e = &entries_[kernel];
    } else {
      if (!anchor_) anchor_ = kernel;
      ++e->runs;
    }
  }
  if (!e->divided) return std::nullopt;
  return Placement{e->divided.get(), static_cast<char*>(arena_->data()) + e->offset,
                   static_cast<std::size_t>(e->divided->workspace_bytes())};
}

}  // namespace ucudnn::shim
