#include "core/plan_shelf.h"

namespace ucudnn {

void PlanShelf::put(const PlanKey& key, std::vector<Configuration> plan, const LimitRange& valid) {
  auto& ranges = shelves_[{key.fingerprint, key.subject, key.policy, key.mode}];
  std::erase_if(ranges, [&](const auto& entry) {
    return valid.overlaps({entry.first, entry.second.below});
  });
  ranges.emplace(valid.from, Entry{valid.below, std::move(plan)});
}

void PlanShelf::put_if_absent(const PlanKey& key, std::vector<Configuration> plan,
                              const LimitRange& valid) {
  auto& ranges = shelves_[{key.fingerprint, key.subject, key.policy, key.mode}];
  for (const auto& [from, entry] : ranges)
    if (valid.overlaps({from, entry.below})) return;
  ranges.emplace(valid.from, Entry{valid.below, std::move(plan)});
}

std::optional<std::vector<Configuration>> PlanShelf::find(const PlanKey& key) const {
  const auto shelf = shelves_.find({key.fingerprint, key.subject, key.policy, key.mode});
  if (shelf == shelves_.end()) return std::nullopt;
  // No two ranges overlap: only the one starting last at or below the limit may hold it.
  const auto& ranges = shelf->second;
  auto at = ranges.upper_bound(key.workspace_limit);
  if (at == ranges.begin()) return std::nullopt;
  --at;
  if (!LimitRange{at->first, at->second.below}.contains(key.workspace_limit)) return std::nullopt;
  return at->second.plan;
}

std::vector<std::string> PlanShelf::subjects(const PlanKey& key) const {
  std::vector<std::string> found;
  for (const auto& [subject, ranges] : shelves_) {
    const auto& [fingerprint, name, policy, mode] = subject;
    if (fingerprint != key.fingerprint || policy != key.policy || mode != key.mode) continue;
    for (const auto& [from, entry] : ranges)
      if (LimitRange{from, entry.below}.contains(key.workspace_limit)) {
        found.push_back(name);
        break;
      }
  }
  return found;  // the map's order: sorted
}

}  // namespace ucudnn
