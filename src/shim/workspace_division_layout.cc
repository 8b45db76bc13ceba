// Dividing: which of an iteration's kernels share a segment (their streams), the division
// stored for them or the one the ILP finds, laid out in one arena; and a stored division
// adopted before the iteration is known.
#include <algorithm>
#include <cstdio>
#include <map>

#include "core/division_key.h"
#include "core/sharing_groups.h"
#include "core/workspace_sharing.h"
#include "shim/log.h"
#include "shim/outdated_plans.h"
#include "shim/stored_plan_candidates.h"
#include "shim/workspace_division_session.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

namespace {

std::string stream_name(std::uintptr_t stream) {
  if (stream == 0) return "the default stream";
  char text[32];
  std::snprintf(text, sizeof text, "stream 0x%jx", static_cast<std::uintmax_t>(stream));
  return text;
}

}  // namespace

bool WorkspaceDivisionSession::divide(const std::vector<Member>& members,
                                      const PlannerContext& context) {
  // Kernels that never run at once share a segment: those of one stream (core/sharing_groups.h).
  std::vector<SharingMember> sharing;
  for (const auto& m : members) {
    const Entry& e = entries_[static_cast<std::size_t>(m.kernel)];
    SharingMember s;
    for (auto stream : m.streams) s.streams.push_back(reinterpret_cast<std::uintptr_t>(stream));
    if (e.kernel.layer != kNoLayer)
      s.buffer = "layer " + std::to_string(e.kernel.layer) + "'s " +
                 std::string(name_of(e.kernel.key.operation)) +
                 (e.kernel.deterministic_only ? " (deterministic)" : "") + " buffer";
    sharing.push_back(std::move(s));
  }
  const SharingGroups groups = sharing_groups(sharing);
  std::vector<DivisionMember> named;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const Entry& e = entries_[static_cast<std::size_t>(members[i].kernel)];
    named.push_back({division_member_name(e.kernel), members[i].runs,
                     static_cast<std::int64_t>(groups.group_of[i])});
  }
  const auto key = division_key(named);
  if (arena_ && key.subject == divided_iteration_) return true;  // the division still holds
  const auto why = sharing_reasons(groups, stream_name);
  std::vector<int> listed;
  std::vector<std::string> listed_why;
  for (auto i : key.order) {
    listed.push_back(members[i].kernel);
    listed_why.push_back(why[groups.group_of[i]]);
  }

  // The stored division adopted before learning is this iteration's: keep it.
  if (arena_ && key.subject == division_subject_ && !stored_division_invalid_ &&
      std::all_of(listed.begin(), listed.end(),
                  [&](int k) { return entries_[static_cast<std::size_t>(k)].divided; })) {
    stored_segments_.clear();
    divided_iteration_ = key.subject;
    explain(listed, key.segment_of, listed_why);
    return true;
  }

  // A division stored under this network's name (made offline, or by an earlier run).
  if (auto stored = stored_division(key.subject, listed, key.segment_of, context)) {
    if (!install(listed, key.segment_of, *stored, context)) return false;
    division_subject_ = divided_iteration_ = key.subject;
    log(LogLevel::kInfo, "workspace division of " + std::to_string(listed.size()) +
                             " kernels taken from the database");
    explain(listed, key.segment_of, listed_why);
    return true;
  }

  std::vector<SharingKernel> kernels;
  std::vector<std::size_t> divided;  // indices into members
  for (std::size_t i = 0; i < members.size(); ++i) {
    const Entry& e = entries_[static_cast<std::size_t>(members[i].kernel)];
    auto front = desirable_set(for_kernel(context, e.kernel), e.kernel.key, total_);
    if (!front) {
      // Left out: it runs beside the arena, the others are divided.
      warn_once("wd-left-out:" + e.kernel.key.to_string(),
                "workspace division leaves out " + e.kernel.key.to_string() + ": " + front.error());
      continue;
    }
    // Time counts once per run in an iteration: a kernel run three times weighs three times.
    kernels.push_back({e.kernel.key.to_string(), std::move(*front),
                       static_cast<double>(members[i].runs), groups.group_of[i]});
    divided.push_back(i);
  }
  auto division = plan_shared_division(kernels, groups.count, total_);
  if (!division) {
    give_up(division.error());
    return false;
  }
  // Stored under the set of the kernels divided, listed in the name's order.
  std::vector<DivisionMember> divided_named;
  for (auto i : divided) divided_named.push_back(named[i]);
  const auto stored_key = division_key(divided_named);
  std::vector<int> stored_kernels;
  std::vector<Configuration> chosen;
  std::vector<std::string> stored_why;
  for (auto j : stored_key.order) {
    stored_kernels.push_back(members[divided[j]].kernel);
    chosen.push_back(kernels[j].front[division->choice[j]]);
    stored_why.push_back(why[kernels[j].group]);
  }
  if (!install(stored_kernels, stored_key.segment_of, chosen, context)) return false;
  if (context.store_plans)
    context.store.put_plan({context.fingerprint.to_string(), stored_key.subject,
                            std::string(name_of(context.policy)), total_, "WD"},
                           chosen);
  division_subject_ = stored_key.subject;
  divided_iteration_ = key.subject;
  log(LogLevel::kInfo,
      "workspace division of " + std::to_string(stored_kernels.size()) + " kernels in " +
          std::to_string(segments_.size()) + " segment" + (segments_.size() == 1 ? "" : "s") +
          ": " + std::to_string(division->time_ms) + " ms in " +
          format_byte_size(division->workspace_bytes) + " of " + format_byte_size(total_));
  explain(stored_kernels, stored_key.segment_of, stored_why);
  return true;
}

// Per kernel, at info: the segment it runs in, shared or its own, and why.
void WorkspaceDivisionSession::explain(const std::vector<int>& kernels,
                                       const std::vector<std::size_t>& segment_of,
                                       const std::vector<std::string>& why) const {
  if (!log_enabled(LogLevel::kInfo)) return;
  std::map<std::size_t, std::size_t> sharers;
  for (auto label : segment_of) ++sharers[label];
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const Entry& e = entries_[static_cast<std::size_t>(kernels[i])];
    if (e.segment < 0) continue;
    const Region& segment = segments_[static_cast<std::size_t>(e.segment)];
    const std::size_t others = sharers[segment_of[i]] - 1;
    std::string where = others > 0 ? "shares segment " + std::to_string(e.segment + 1) + " (" +
                                         format_byte_size(segment.bytes) +
                                         ") in stream order with " + std::to_string(others) +
                                         " other kernel" + (others == 1 ? "" : "s")
                                   : "owns segment " + std::to_string(e.segment + 1) + " (" +
                                         format_byte_size(segment.bytes) + ")";
    log(LogLevel::kInfo, "workspace division: " + e.kernel.key.to_string() + " runs " +
                             e.in_segment->configuration().to_string() + "; it " + where + ": " +
                             why[i]);
  }
}

// The division stored under `subject`, one configuration per kernel in the subject's order,
// when it fits the total and every configuration can run here.
std::optional<std::vector<Configuration>> WorkspaceDivisionSession::stored_division(
    const std::string& subject, const std::vector<int>& kernels,
    const std::vector<std::size_t>& segment_of, const PlannerContext& context) {
  auto stored = context.store.find_plan({context.fingerprint.to_string(), subject,
                                         std::string(name_of(context.policy)), total_, "WD"});
  if (!stored) return std::nullopt;
  for (const auto& configuration : *stored) {
    if (const auto algorithm = context.excluded->excluded_in(configuration)) {
      log(LogLevel::kInfo, "a stored workspace division uses " + *algorithm +
                               ", excluded by UCUDNN_EXCLUDE_ALGORITHMS: dividing without it for "
                               "this process");
      return std::nullopt;
    }
    if (context.may_measure && planned_among_other_candidates(context, configuration)) {
      log(LogLevel::kInfo,
          "a stored workspace division was made among other candidates than UCUDNN_CANDIDATES "
          "asks for: dividing again");
      return std::nullopt;
    }
  }
  std::optional<std::string> problem;
  if (stored->size() != kernels.size())
    problem = "it lists " + std::to_string(stored->size()) + " kernels, not " +
              std::to_string(kernels.size());
  else if (shared_segment_layout(*stored, segment_of).arena_bytes > total_)
    problem = "it needs more than the total";
  for (std::size_t i = 0; !problem && i < kernels.size(); ++i) {
    const Entry& e = entries_[static_cast<std::size_t>(kernels[i])];
    problem = plan_problem(for_kernel(context, e.kernel), e.kernel.key, (*stored)[i],
                           (*stored)[i].workspace_bytes());
  }
  if (problem) {
    warn_once("wd-invalid:" + subject,
              "discarding an invalid stored workspace division: " + *problem);
    return std::nullopt;
  }
  for (const int kernel : kernels) note_stored(entries_[static_cast<std::size_t>(kernel)], context);
  return stored;
}

// Frees the division in place and lays out a new one: the arena, its segments, and each
// kernel's plan in its segment.
bool WorkspaceDivisionSession::install(const std::vector<int>& kernels,
                                       const std::vector<std::size_t>& segment_of,
                                       const std::vector<Configuration>& chosen,
                                       const PlannerContext& context) {
  release_memory();
  const auto layout = shared_segment_layout(chosen, segment_of);
  if (!allocate_arena(layout.arena_bytes, context)) {
    give_up("cannot allocate the " + format_byte_size(layout.arena_bytes) + " arena");
    return false;
  }
  std::map<std::size_t, int> segment_index;  // label -> segments_
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    auto [it, inserted] =
        segment_index.try_emplace(segment_of[i], static_cast<int>(segments_.size()));
    if (inserted) {
      Region& region = segments_.emplace_back();
      region.data = static_cast<char*>(arena_->data()) + layout.offset[i];
      region.bytes = layout.bytes[i];
    }
    Entry& e = entries_[static_cast<std::size_t>(kernels[i])];
    std::shared_ptr<cudnn::PlanExecutor> executor;
    try {
      executor = make_executor(for_kernel(context, e.kernel), e.kernel.key, chosen[i]);
    } catch (const std::exception& error) {
      // Left without a segment: it runs beside the arena, as a kernel that needs too much.
      warn_once("wd-executor:" + e.kernel.key.to_string(),
                "workspace division cannot run " + chosen[i].to_string() + " for " +
                    e.kernel.key.to_string() + ": " + error.what());
      continue;
    }
    // Segments are sized by the measurements; a kernel needing more than its measurement
    // said (a poisoned database) must not spill into its neighbour's.
    if (executor->workspace_bytes() > chosen[i].workspace_bytes()) continue;
    e.segment = it->second;
    account_plan(e, *executor, layout.bytes[i], context);
    e.in_segment = std::move(executor);
    e.divided = true;
    twin_segment_.try_emplace(e.twins, e.segment);
  }
  return true;
}

void WorkspaceDivisionSession::adopt_stored_division(const KernelIdentity& kernel,
                                                     const PlannerContext& context) {
  if (looked_for_stored_ || arena_ || given_up_) return;
  looked_for_stored_ = true;
  const std::string hash = division_member_name(kernel);
  PlanKey key{context.fingerprint.to_string(), "", std::string(name_of(context.policy)), total_,
              "WD"};
  for (const auto& subject : context.store.plan_subjects(key)) {
    const auto members = parse_division_subject(subject);
    if (!members || std::none_of(members->begin(), members->end(),
                                 [&](const DivisionMember& m) { return m.kernel_hash == hash; }))
      continue;
    key.subject = subject;
    const auto plan = context.store.find_plan(key);
    if (!plan || plan->size() != members->size()) continue;
    const std::vector<std::size_t> labels = segment_labels(*members);
    const auto layout = shared_segment_layout(*plan, labels);
    std::map<std::string, StoredSegment> segments;
    std::map<std::size_t, int> segment_index;
    for (std::size_t i = 0; i < plan->size(); ++i) {
      auto it = segment_index.try_emplace(labels[i], static_cast<int>(segment_index.size())).first;
      segments.try_emplace((*members)[i].kernel_hash, StoredSegment{it->second, (*plan)[i]});
    }
    // Layers of one shape (UcudnnHandle_t layer ids) would share a segment: not taken.
    if (layout.arena_bytes > total_ || segments.size() != plan->size()) continue;
    if (!allocate_arena(layout.arena_bytes, context)) return;  // learned and divided later
    segments_.assign(segment_index.size(), Region{});
    for (std::size_t i = 0; i < plan->size(); ++i) {
      Region& region = segments_[static_cast<std::size_t>(segment_index[labels[i]])];
      region.data = static_cast<char*>(arena_->data()) + layout.offset[i];
      region.bytes = layout.bytes[i];
    }
    stored_segments_.clear();
    for (auto& [name, segment] : segments) stored_segments_.emplace(name, std::move(segment));
    division_subject_ = subject;
    log(LogLevel::kInfo, "using the stored workspace division of " + std::to_string(plan->size()) +
                             " kernels in " + format_byte_size(layout.arena_bytes) +
                             " from the first call");
    return;
  }
}

// A kernel that runs from a stored division lists no candidates: the exclusion's account notes
// those the database knows (note_stored_candidates).
void WorkspaceDivisionSession::note_stored(const Entry& e, const PlannerContext& context) {
  note_stored_candidates(for_kernel(context, e.kernel), e.kernel.key,
                         context.host ? &context.host->backend->benchmarker() : nullptr);
}

// Gives the kernel its segment in the adopted stored division, when it is one of its kernels
// and the stored configuration can run here.
void WorkspaceDivisionSession::take_stored_segment(int kernel, const PlannerContext& context) {
  Entry& e = entries_[static_cast<std::size_t>(kernel)];
  if (stored_segments_.empty() || e.looked_up_stored) return;
  e.looked_up_stored = true;
  const auto found = stored_segments_.find(division_member_name(e.kernel));
  if (found == stored_segments_.end()) return;
  const StoredSegment stored = std::move(found->second);
  stored_segments_.erase(found);
  const std::uint64_t bytes = stored.configuration.workspace_bytes();
  auto problem =
      plan_problem(for_kernel(context, e.kernel), e.kernel.key, stored.configuration, bytes);
  std::shared_ptr<cudnn::PlanExecutor> executor;
  if (!problem) {
    try {
      executor = make_executor(for_kernel(context, e.kernel), e.kernel.key, stored.configuration);
      if (executor->workspace_bytes() > bytes) problem = "it needs more than its segment";
    } catch (const std::exception& error) {
      problem = error.what();
    }
  }
  if (problem) {
    stored_division_invalid_ = true;  // divided anew once the iteration is learned
    warn_once("wd-invalid:" + division_subject_,
              "discarding an invalid stored workspace division: " + *problem);
    return;
  }
  note_stored(e, context);
  e.segment = stored.segment;
  account_plan(e, *executor, segments_[static_cast<std::size_t>(stored.segment)].bytes, context);
  e.in_segment = std::move(executor);
  e.divided = true;
  twin_segment_.try_emplace(e.twins, e.segment);
}

}  // namespace ucudnn::shim
