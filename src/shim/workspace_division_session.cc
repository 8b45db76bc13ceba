#include "shim/workspace_division_session.h"

#include "core/byte_size.h"
#include "core/workspace_division.h"
#include "shim/log.h"

namespace ucudnn::shim {

WorkspaceDivisionSession::Entry& WorkspaceDivisionSession::entry(const KernelIdentity& kernel) {
  auto [it, inserted] = entries_.try_emplace(kernel);
  if (inserted) order_.push_back(kernel);
  return it->second;
}

void WorkspaceDivisionSession::note(const KernelIdentity& kernel) {
  const bool known = entries_.count(kernel) > 0;
  entry(kernel);
  if (!known && planned_) {
    // A new kernel after the division: learn again, keeping the current segments meanwhile.
    planned_ = false;
    anchor_.reset();
    for (auto& [identity, e] : entries_) e.runs = 0;
  }
}

void WorkspaceDivisionSession::give_up(const std::string& why) {
  given_up_ = true;
  warn_once("wd-given-up", "workspace division (UCUDNN_TOTAL_WORKSPACE_SIZE=" +
                               format_byte_size(total_) + ") is off for this handle: " + why +
                               "; planning each kernel in the application's workspace (WR)");
}

const cudnn::PlanExecutor* WorkspaceDivisionSession::learning_plan(const KernelIdentity& kernel,
                                                                   Entry& e,
                                                                   const PlannerContext& context) {
  if (!e.learning) {
    auto plan = plan_reuse(context, kernel.key, total_);
    if (!plan) return nullptr;
    e.learning = std::make_shared<cudnn::PlanExecutor>(context.api, kernel.key, *plan);
  }
  return e.learning.get();
}

std::optional<double> WorkspaceDivisionSession::planned_time_ms(const KernelIdentity& kernel,
                                                                const PlannerContext& context) {
  Entry& e = entry(kernel);
  if (planned_ && e.divided) return e.divided->configuration().time_ms();
  const cudnn::PlanExecutor* plan = learning_plan(kernel, e, context);
  if (!plan) return std::nullopt;
  return plan->configuration().time_ms();
}

bool WorkspaceDivisionSession::solve(const PlannerContext& context) {
  std::vector<KernelCandidates> candidates;
  std::vector<ParetoFront> fronts;
  for (const auto& kernel : order_) {
    auto front = desirable_set(context, kernel.key, total_);
    if (!front) {
      give_up(front.error());
      return false;
    }
    // Time counts once per run in an iteration: a kernel run twice weighs twice.
    ParetoFront weighted = *front;
    const int weight = std::max(1, entries_[kernel].runs);
    for (auto& configuration : weighted)
      for (auto& m : configuration.micro) m.time_ms *= weight;
    candidates.push_back({kernel.key.to_string(), std::move(weighted)});
    fronts.push_back(std::move(*front));
  }
  auto division = plan_workspace_division(candidates, total_);
  if (!division) {
    give_up(division.error());
    return false;
  }
  std::vector<Configuration> chosen;
  for (std::size_t i = 0; i < order_.size(); ++i) {
    Entry& e = entries_[order_[i]];
    chosen.push_back(fronts[i][division->choice[i]]);
    e.divided = std::make_shared<cudnn::PlanExecutor>(context.api, order_[i].key, chosen.back());
    e.offset = division->offsets[i];
  }
  planned_ = true;
  std::string network;
  for (const auto& kernel : order_) network += kernel.key.hash_hex() + ";";
  context.store.put_plan({context.fingerprint.to_string(), "network:" + network,
                          std::string(name_of(context.policy)), total_, "WD"},
                         chosen);
  log(LogLevel::kInfo, "workspace division of " + std::to_string(order_.size()) +
                           " kernels: " + std::to_string(division->time_ms) + " ms in " +
                           format_byte_size(division->workspace_bytes) + " of " +
                           format_byte_size(total_));
  return true;
}

std::optional<WorkspaceDivisionSession::Placement> WorkspaceDivisionSession::place(
    const KernelIdentity& kernel, const PlannerContext& context) {
  if (given_up_) return std::nullopt;
  if (!arena_) {
    arena_ = cudnn::DeviceBuffer::allocate(context.runtime, total_);
    if (!arena_) {
      give_up("cannot allocate the " + format_byte_size(total_) + " arena");
      return std::nullopt;
    }
  }
  note(kernel);
  Entry& e = entries_[kernel];
  if (!planned_) {
    if (anchor_ && *anchor_ == kernel && e.runs > 0) {
      if (!solve(context)) return std::nullopt;
    } else {
      if (!anchor_) anchor_ = kernel;
      ++e.runs;
    }
  }
  if (planned_ && e.divided)
    return Placement{e.divided.get(), static_cast<char*>(arena_->data()) + e.offset,
                     static_cast<std::size_t>(e.divided->workspace_bytes())};
  const cudnn::PlanExecutor* plan = learning_plan(kernel, e, context);
  if (!plan) {
    give_up("no plan of " + kernel.key.to_string() + " fits the total");
    return std::nullopt;
  }
  return Placement{plan, arena_->data(), static_cast<std::size_t>(total_)};
}

}  // namespace ucudnn::shim
