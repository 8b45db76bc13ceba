#include "core/workspace_sharing.h"

#include <algorithm>
#include <limits>
#include <map>

#include "core/workspace_division.h"

namespace ucudnn {

std::size_t fastest_within(const ParetoFront& front, std::uint64_t bytes) {
  // Sorted by increasing workspace and decreasing time: the last that fits is the fastest.
  const auto fits = std::upper_bound(
      front.begin(), front.end(), bytes,
      [](std::uint64_t limit, const Configuration& c) { return limit < c.workspace_bytes(); });
  return fits == front.begin() ? front.size() : static_cast<std::size_t>(fits - front.begin()) - 1;
}

ParetoFront merged_front(const std::vector<const SharingKernel*>& members) {
  // Every segment size worth considering is some member's configuration's workspace: sweep
  // them in increasing order, keeping each member's fastest time so far.
  struct Point {
    std::uint64_t bytes;
    double time_ms;
    std::size_t member;
  };
  std::vector<Point> points;
  for (std::size_t m = 0; m < members.size(); ++m)
    for (const auto& c : members[m]->front) points.push_back({c.workspace_bytes(), c.time_ms(), m});
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return a.bytes < b.bytes; });
  std::vector<double> best(members.size(), std::numeric_limits<double>::infinity());
  std::size_t missing = members.size();
  ParetoFront merged;
  for (std::size_t i = 0; i < points.size();) {
    const std::uint64_t bytes = points[i].bytes;
    for (; i < points.size() && points[i].bytes == bytes; ++i) {
      double& b = best[points[i].member];
      if (b == std::numeric_limits<double>::infinity()) --missing;
      b = std::min(b, points[i].time_ms);
    }
    if (missing > 0) continue;
    double time = 0;
    for (std::size_t m = 0; m < members.size(); ++m) time += members[m]->weight * best[m];
    if (merged.empty() || time < merged.back().time_ms())
      merged.push_back(Configuration{{MicroConfiguration{"shared", "segment", 0, time, bytes}}});
  }
  return merged;
}

Expected<SharedDivision> plan_shared_division(const std::vector<SharingKernel>& kernels,
                                              std::size_t groups, std::uint64_t total_limit,
                                              std::uint64_t alignment) {
  std::vector<std::vector<const SharingKernel*>> members(groups);
  for (const auto& k : kernels) {
    if (k.group >= groups) return Error{"kernel '" + k.name + "' is in no group"};
    if (k.front.empty()) return Error{"kernel '" + k.name + "' has no configuration"};
    members[k.group].push_back(&k);
  }
  std::vector<KernelCandidates> candidates;
  std::vector<std::size_t> group_of_candidate;
  for (std::size_t g = 0; g < groups; ++g) {
    if (members[g].empty()) continue;
    std::string name = members[g].front()->name;
    if (members[g].size() > 1)
      name += " and " + std::to_string(members[g].size() - 1) + " kernels sharing its segment";
    candidates.push_back({std::move(name), merged_front(members[g])});
    group_of_candidate.push_back(g);
  }
  auto division = plan_workspace_division(candidates, total_limit, alignment);
  if (!division) return Error{division.error()};
  SharedDivision shared;
  shared.segment_bytes.assign(groups, 0);
  shared.offsets.assign(groups, division->workspace_bytes);
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const std::size_t g = group_of_candidate[c];
    shared.segment_bytes[g] = candidates[c].front[division->choice[c]].workspace_bytes();
    shared.offsets[g] = division->offsets[c];
  }
  for (const auto& k : kernels) {
    shared.choice.push_back(fastest_within(k.front, shared.segment_bytes[k.group]));
    shared.time_ms += k.weight * k.front[shared.choice.back()].time_ms();
  }
  shared.workspace_bytes = division->workspace_bytes;
  shared.variables = division->variables;
  return shared;
}

SegmentLayout shared_segment_layout(const std::vector<Configuration>& chosen,
                                    const std::vector<std::size_t>& segment_of,
                                    std::uint64_t alignment) {
  std::map<std::size_t, std::uint64_t> bytes_of;  // label -> the largest member's workspace
  std::vector<std::size_t> labels;                // in order of first appearance
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    auto [it, inserted] = bytes_of.try_emplace(segment_of[i], 0);
    if (inserted) labels.push_back(segment_of[i]);
    it->second = std::max(it->second, chosen[i].workspace_bytes());
  }
  std::vector<Configuration> segments;
  for (auto label : labels)
    segments.push_back(Configuration{{MicroConfiguration{"", "", 0, 0, bytes_of[label]}}});
  const auto offsets = segment_offsets(segments, alignment);
  std::map<std::size_t, std::uint64_t> offset_of;
  for (std::size_t s = 0; s < labels.size(); ++s) offset_of[labels[s]] = offsets[s];
  SegmentLayout layout;
  for (std::size_t i = 0; i < chosen.size(); ++i) {
    layout.offset.push_back(offset_of[segment_of[i]]);
    layout.bytes.push_back(bytes_of[segment_of[i]]);
  }
  layout.arena_bytes = offsets.back();
  return layout;
}

}  // namespace ucudnn
