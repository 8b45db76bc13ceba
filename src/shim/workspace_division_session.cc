#include "shim/workspace_division_session.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "core/division_key.h"
#include "core/workspace_division.h"
#include "cudnn/current_device.h"
#include "shim/log.h"
#include "user_input/byte_size.h"

namespace ucudnn::shim {

namespace {

// Learning keeps at most this many runs: a kernel run once long ago (a warm-up) would
// otherwise keep every later iteration from counting as one.
constexpr std::size_t kMaxHistory = 1 << 14;

// Equal runs per group, up to a common factor: an iteration found twice as long (batch 16
// then 12, alternating) weighs the groups as before.
bool proportional(const std::unordered_map<KernelIdentity, int, KernelIdentityHash>& a,
                  const std::unordered_map<KernelIdentity, int, KernelIdentityHash>& b) {
  if (a.size() != b.size() || a.empty()) return false;
  const auto sum = [](const auto& m) {
    return std::accumulate(m.begin(), m.end(), std::int64_t{0},
                           [](std::int64_t s, const auto& kv) { return s + kv.second; });
  };
  const std::int64_t total_a = sum(a), total_b = sum(b);
  for (const auto& [group, runs] : a) {
    auto other = b.find(group);
    if (other == b.end() || std::int64_t{runs} * total_b != std::int64_t{other->second} * total_a)
      return false;
  }
  return true;
}

}  // namespace

bool WorkspaceDivisionSession::given_up() const {
  std::lock_guard lock(mutex_);
  return given_up_;
}

int WorkspaceDivisionSession::index_of(const KernelIdentity& kernel) {
  auto [it, inserted] = index_.try_emplace(kernel, static_cast<int>(entries_.size()));
  if (inserted) {
    // Kernels that must run deterministically are a group of their own: their plans may not
    // be an unrestricted twin's.
    KernelIdentity group{kernel.key.with_batch(1), kernel.layer, kernel.deterministic_only};
    Entry& e = entries_.emplace_back();
    e.kernel = kernel;
    e.group = group;
    groups_.try_emplace(std::move(group));
  }
  return it->second;
}

void WorkspaceDivisionSession::note(const KernelIdentity& kernel, const PlannerContext& context) {
  std::lock_guard lock(mutex_);
  if (given_up_) return;
  const int k = index_of(kernel);
  adopt_stored_division(kernel, context);
  take_stored_segment(k, context);
}

void WorkspaceDivisionSession::release_memory() {
  for (auto& e : entries_) {
    e.in_segment.reset();
    e.no_plan_in_segment = false;
    e.waiting.reset();
    e.no_waiting_plan = false;
  }
  for (auto& [key, g] : groups_) {
    g.segment.reset();
    g.representative = -1;
  }
  stored_segments_.clear();
  division_subject_.clear();
  // cudaFree waits for the work still using these.
  scratch_.reset();
  scratch_region_ = {};
  keep_if_captured();
  arena_.reset();
}

void WorkspaceDivisionSession::give_up(const std::string& why) {
  given_up_ = true;
  release_memory();
  warn_once("wd-given-up",
            "workspace division (UCUDNN_TOTAL_WORKSPACE_SIZE=" + format_byte_size(total_) +
                ") is off: " + why + "; planning each kernel in the application's workspace (WR)");
}

void WorkspaceDivisionSession::keep_if_captured() {
  // Deliberately never freed: a graph may be replayed at any time for the rest of the process.
  if (arena_captured_ && arena_) new cudnn::DeviceBuffer(std::move(*arena_));
  arena_captured_ = false;
}

WorkspaceDivisionSession::~WorkspaceDivisionSession() {
  keep_if_captured();
}

std::optional<Configuration> WorkspaceDivisionSession::reported_configuration(
    const KernelIdentity& kernel, const PlannerContext& context) {
  std::lock_guard lock(mutex_);
  const int k = index_of(kernel);
  if (!given_up_) {
    adopt_stored_division(kernel, context);
    take_stored_segment(k, context);
  }
  Entry& e = entries_[k];
  if (e.in_segment) return e.in_segment->configuration();
  if (!e.best_within_total) {
    auto plan = plan_reuse(for_kernel(context, kernel), kernel.key, total_);
    if (!plan) return std::nullopt;
    e.best_within_total = *plan;
  }
  return e.best_within_total;
}

// The shortest sequence that the runs end with twice in a row and that holds every kernel
// run since learning began.
std::optional<std::size_t> WorkspaceDivisionSession::repeated_iteration() const {
  const std::size_t n = history_.size(), kinds = history_runs_.size();
  if (n < 2 * kinds) return std::nullopt;
  // The iteration's length p: the last run recurs p runs earlier.
  for (std::size_t p = kinds; 2 * p <= n; ++p) {
    if (history_[n - 1 - p] != history_[n - 1]) continue;
    if (!std::equal(history_.end() - static_cast<std::ptrdiff_t>(p), history_.end(),
                    history_.end() - static_cast<std::ptrdiff_t>(2 * p)))
      continue;
    std::unordered_set<int> in_iteration(history_.end() - static_cast<std::ptrdiff_t>(p),
                                         history_.end());
    if (in_iteration.size() == kinds) return p;
  }
  return std::nullopt;
}

void WorkspaceDivisionSession::observe(int kernel, const PlannerContext& context) {
  if (following_) {
    if (iteration_[position_] == kernel) {
      position_ = (position_ + 1) % iteration_.size();
      return;
    }
    following_ = false;  // the application changed what it runs: learn again
    history_.clear();
    history_runs_.clear();
  }
  if (history_.size() == kMaxHistory) {
    history_.erase(history_.begin(), history_.begin() + kMaxHistory / 2);
    history_runs_.clear();
    for (int k : history_) ++history_runs_[k];
  }
  history_.push_back(kernel);
  ++history_runs_[kernel];
  const auto length = repeated_iteration();
  if (!length) return;
  iteration_.assign(history_.end() - static_cast<std::ptrdiff_t>(*length), history_.end());
  position_ = 0;
  following_ = true;
  history_.clear();
  history_runs_.clear();
  std::unordered_map<int, int> runs;
  for (int k : iteration_) ++runs[k];
  std::unordered_map<KernelIdentity, int, KernelIdentityHash> weights;
  for (const auto& [k, count] : runs) weights[entries_[k].group] += count;
  if (arena_ && proportional(weights, divided_weights_)) return;  // the division still holds
  divide(runs, context);
}

bool WorkspaceDivisionSession::divide(const std::unordered_map<int, int>& runs,
                                      const PlannerContext& context) {
  // Per group: the runs of its kernels, and the kernel of the largest batch to divide for.
  std::unordered_map<KernelIdentity, std::pair<int, int>, KernelIdentityHash> members;
  std::vector<KernelIdentity> order;  // groups by first sight, for stable messages
  for (int k = 0; k < static_cast<int>(entries_.size()); ++k) {
    auto found = runs.find(k);
    if (found == runs.end()) continue;
    const Entry& e = entries_[k];
    auto [it, inserted] = members.try_emplace(e.group, 0, k);
    if (inserted) order.push_back(e.group);
    it->second.first += found->second;
    if (e.kernel.key.problem.batch() > entries_[it->second.second].kernel.key.problem.batch())
      it->second.second = k;
  }
  std::vector<DivisionMember> named;
  std::vector<int> representatives;
  std::unordered_map<KernelIdentity, int, KernelIdentityHash> weights;
  for (const auto& group : order) {
    const auto [weight, representative] = members[group];
    named.push_back({division_member_name(entries_[representative].kernel), weight});
    representatives.push_back(representative);
    weights[group] = weight;
  }
  const auto key = division_key(named);

  // The stored division adopted before learning is this iteration's: keep it.
  if (arena_ && key.subject == division_subject_ && !stored_division_invalid_ &&
      std::all_of(order.begin(), order.end(), [&](const KernelIdentity& group) {
        const Group& g = groups_[group];
        return g.segment && g.representative == members[group].second;
      })) {
    stored_segments_.clear();
    divided_weights_ = std::move(weights);
    return true;
  }

  // A division stored under this network's name (made offline, or by an earlier run).
  std::vector<int> kernels;
  for (auto i : key.order) kernels.push_back(representatives[i]);
  if (auto stored = stored_division(key.subject, kernels, context)) {
    std::vector<Configuration> chosen(order.size());
    for (std::size_t i = 0; i < key.order.size(); ++i) chosen[key.order[i]] = (*stored)[i];
    if (!install(order, representatives, chosen, context)) return false;
    divided_weights_ = std::move(weights);
    division_subject_ = key.subject;
    log(LogLevel::kInfo, "workspace division of " + std::to_string(order.size()) +
                             " kernel groups taken from the database");
    return true;
  }

  std::vector<KernelCandidates> candidates;
  std::vector<ParetoFront> fronts;
  std::vector<KernelIdentity> divided;
  std::vector<int> divided_representatives;
  std::vector<DivisionMember> divided_named;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const auto& group = order[i];
    const auto [weight, representative] = members[group];
    const KernelKey& key_of_group = entries_[representative].kernel.key;
    auto front =
        desirable_set(for_kernel(context, entries_[representative].kernel), key_of_group, total_);
    if (!front) {
      // Left out: it runs beside the arena, the others are divided.
      warn_once("wd-left-out:" + key_of_group.to_string(),
                "workspace division leaves out " + key_of_group.to_string() + ": " + front.error());
      weights.erase(group);
      continue;
    }
    // Time counts once per run in an iteration: a kernel run three times weighs three times.
    ParetoFront weighted = *front;
    for (auto& configuration : weighted) {
      for (auto& m : configuration.micro) m.time_ms *= weight;
      if (auto& share = configuration.offload) {
        for (auto& m : share->micro) m.time_ms *= weight;
        share->copy_ms *= weight;
      }
    }
    candidates.push_back({key_of_group.to_string(), std::move(weighted)});
    fronts.push_back(std::move(*front));
    divided.push_back(group);
    divided_representatives.push_back(representative);
    divided_named.push_back(named[i]);
  }
  auto division = plan_workspace_division(candidates, total_);
  if (!division) {
    give_up(division.error());
    return false;
  }
  std::vector<Configuration> chosen;
  for (std::size_t i = 0; i < divided.size(); ++i) chosen.push_back(fronts[i][division->choice[i]]);
  if (!install(divided, divided_representatives, chosen, context)) return false;
  divided_weights_ = std::move(weights);
  // Stored under the set of its kernels, listed in the name's order.
  const auto stored_key = division_key(divided_named);
  std::vector<Configuration> listed;
  for (auto i : stored_key.order) listed.push_back(chosen[i]);
  context.store.put_plan({context.fingerprint.to_string(), stored_key.subject,
                          std::string(name_of(context.policy)), total_, "WD"},
                         listed);
  division_subject_ = stored_key.subject;
  log(LogLevel::kInfo, "workspace division of " + std::to_string(divided.size()) +
                           " kernel groups: " + std::to_string(division->time_ms) + " ms in " +
                           format_byte_size(division->workspace_bytes) + " of " +
                           format_byte_size(total_));
  return true;
}

// The division stored under `subject`, one configuration per kernel in the subject's order,
// when it fits the total and every configuration can run here.
std::optional<std::vector<Configuration>> WorkspaceDivisionSession::stored_division(
    const std::string& subject, const std::vector<int>& kernels, const PlannerContext& context) {
  auto stored = context.store.find_plan({context.fingerprint.to_string(), subject,
                                         std::string(name_of(context.policy)), total_, "WD"});
  if (!stored) return std::nullopt;
  std::optional<std::string> problem;
  if (stored->size() != kernels.size())
    problem = "it lists " + std::to_string(stored->size()) + " kernels, not " +
              std::to_string(kernels.size());
  else if (segment_offsets(*stored).back() > total_)
    problem = "it needs more than the total";
  for (std::size_t i = 0; !problem && i < kernels.size(); ++i)
    problem =
        plan_problem(for_kernel(context, entries_[kernels[i]].kernel),
                     entries_[kernels[i]].kernel.key, (*stored)[i], (*stored)[i].workspace_bytes());
  if (problem) {
    warn_once("wd-invalid:" + subject,
              "discarding an invalid stored workspace division: " + *problem);
    return std::nullopt;
  }
  return stored;
}

bool WorkspaceDivisionSession::allocate_arena(std::uint64_t bytes, const PlannerContext& context) {
  const cudnn::CurrentDevice on(context.runtime, context.device);
  arena_ = cudnn::DeviceBuffer::allocate(context.runtime, bytes);
  return arena_.has_value();
}

// Frees the division in place and lays out a new one: the arena, and each group's segment
// with its representative's plan.
bool WorkspaceDivisionSession::install(const std::vector<KernelIdentity>& groups,
                                       const std::vector<int>& representatives,
                                       const std::vector<Configuration>& chosen,
                                       const PlannerContext& context) {
  release_memory();
  const auto offsets = segment_offsets(chosen);
  if (!allocate_arena(offsets.back(), context)) {
    give_up("cannot allocate the " + format_byte_size(offsets.back()) + " arena");
    return false;
  }
  for (std::size_t i = 0; i < groups.size(); ++i) {
    Entry& e = entries_[representatives[i]];
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
    Group& g = groups_[groups[i]];
    g.segment.emplace();
    g.segment->data = static_cast<char*>(arena_->data()) + offsets[i];
    g.segment->bytes = chosen[i].workspace_bytes();
    g.representative = representatives[i];
    e.in_segment = std::move(executor);
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
    const auto offsets = segment_offsets(*plan);
    std::unordered_map<std::string, StoredSegment> segments;
    for (std::size_t i = 0; i < plan->size(); ++i)
      segments.try_emplace((*members)[i].kernel_hash, StoredSegment{offsets[i], (*plan)[i]});
    // Layers of one shape (UcudnnHandle_t layer ids) would share a segment: not taken.
    if (offsets.back() > total_ || segments.size() != plan->size()) continue;
    if (!allocate_arena(offsets.back(), context)) return;  // learned and divided as usual, later
    stored_segments_ = std::move(segments);
    division_subject_ = subject;
    log(LogLevel::kInfo, "using the stored workspace division of " + std::to_string(plan->size()) +
                             " kernels in " + format_byte_size(offsets.back()) +
                             " from the first call");
    return;
  }
}

// Gives the kernel its segment in the adopted stored division, when it is one of its kernels
// and the stored configuration can run here.
void WorkspaceDivisionSession::take_stored_segment(int kernel, const PlannerContext& context) {
  Entry& e = entries_[kernel];
  if (stored_segments_.empty() || e.looked_up_stored) return;
  e.looked_up_stored = true;
  const auto found = stored_segments_.find(division_member_name(e.kernel));
  if (found == stored_segments_.end()) return;
  const StoredSegment stored = std::move(found->second);
  stored_segments_.erase(found);
  Group& g = groups_[e.group];
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
  if (problem || g.segment) {
    stored_division_invalid_ = true;  // divided anew once the iteration is learned
    if (problem)
      warn_once("wd-invalid:" + division_subject_,
                "discarding an invalid stored workspace division: " + *problem);
    return;
  }
  g.segment.emplace();
  g.segment->data = static_cast<char*>(arena_->data()) + stored.offset;
  g.segment->bytes = bytes;
  g.representative = kernel;
  e.in_segment = std::move(executor);
}

bool WorkspaceDivisionSession::solve(const PlannerContext& context) {
  std::lock_guard lock(mutex_);
  if (given_up_) return false;
  std::unordered_map<int, int> runs;
  for (int k = 0; k < static_cast<int>(entries_.size()); ++k) runs[k] = 1;
  if (following_) {
    for (auto& [k, count] : runs) count = 0;
    for (int k : iteration_) ++runs[k];
  } else {
    for (const auto& [k, count] : history_runs_) runs[k] = count;
  }
  for (auto& [k, count] : runs) count = std::max(count, 1);
  return divide(runs, context);
}

const cudnn::PlanExecutor* WorkspaceDivisionSession::plan_in_segment(
    Entry& e, Group& g, const PlannerContext* context) {
  if (!g.segment) return nullptr;
  if (e.in_segment) return e.in_segment.get();
  // Another batch size of the group: WR within the segment, planned once (not while captured).
  if (e.no_plan_in_segment || !context) return nullptr;
  auto plan = plan_reuse(for_kernel(*context, e.kernel), e.kernel.key, g.segment->bytes);
  if (plan) {
    auto executor =
        std::make_shared<cudnn::PlanExecutor>(context->api, context->handle, e.kernel.key, *plan);
    if (executor->workspace_bytes() <= g.segment->bytes) e.in_segment = std::move(executor);
  }
  e.no_plan_in_segment = !e.in_segment;
  return e.in_segment.get();
}

const cudnn::PlanExecutor* WorkspaceDivisionSession::plan_waiting(Entry& e,
                                                                  const PlannerContext& context) {
  const std::uint64_t left = total_ - (arena_ ? arena_->size() : 0);
  if (e.waiting_limit != left) {
    e.waiting.reset();
    e.no_waiting_plan = false;
    e.waiting_limit = left;
  }
  if (!e.waiting && !e.no_waiting_plan) {
    auto plan = plan_reuse(for_kernel(context, e.kernel), e.kernel.key, left);
    if (plan) {
      auto executor =
          std::make_shared<cudnn::PlanExecutor>(context.api, context.handle, e.kernel.key, *plan);
      if (executor->workspace_bytes() <= left) e.waiting = std::move(executor);
    }
    e.no_waiting_plan = !e.waiting;
  }
  if (!e.waiting) return nullptr;
  const std::uint64_t needed = e.waiting->workspace_bytes();
  if (needed > (scratch_ ? scratch_->size() : 0)) {
    scratch_.reset();  // first: the arena and the scratch buffer never exceed the total
    scratch_region_ = {};
    const cudnn::CurrentDevice on(context.runtime, context.device);
    scratch_ = cudnn::DeviceBuffer::allocate(context.runtime, needed);
    if (!scratch_) return nullptr;
    scratch_region_.data = scratch_->data();
    scratch_region_.bytes = needed;
  }
  return e.waiting.get();
}

// Orders this use of the region after its last use when that was on another stream: an event
// recorded there now (after everything issued to it) and waited for here.
bool WorkspaceDivisionSession::order_after_last_use(Region& region, cudaStream_t stream,
                                                    const cudnn::CudaRuntime& runtime) {
  if (region.used && region.last_stream != stream) {
    if (!region.event) region.event = std::make_shared<cudnn::CudaEvent>(runtime);
    if (!region.event->valid() ||
        runtime.cudaEventRecord(region.event->get(), region.last_stream) != cudaSuccess ||
        runtime.cudaStreamWaitEvent(stream, region.event->get(), 0) != cudaSuccess) {
      runtime.cudaGetLastError();  // ours, not the application's
      return false;
    }
  }
  region.used = true;
  region.last_stream = stream;
  return true;
}

std::optional<WorkspaceDivisionSession::Placement> WorkspaceDivisionSession::place(
    const KernelIdentity& kernel, const PlannerContext& context, cudaStream_t stream) {
  std::unique_lock lock(mutex_);
  if (given_up_) return std::nullopt;
  const int k = index_of(kernel);
  adopt_stored_division(kernel, context);
  observe(k, context);
  if (given_up_) return std::nullopt;
  take_stored_segment(k, context);
  Entry& e = entries_[k];
  Group& g = groups_[e.group];
  if (const auto* plan = plan_in_segment(e, g, &context))
    if (order_after_last_use(*g.segment, stream, context.runtime))
      return Placement{std::move(lock), plan, g.segment->data,
                       static_cast<std::size_t>(plan->workspace_bytes())};
  if (const auto* plan = plan_waiting(e, context))
    if (order_after_last_use(scratch_region_, stream, context.runtime))
      return Placement{std::move(lock), plan, scratch_region_.data,
                       static_cast<std::size_t>(plan->workspace_bytes())};
  return std::nullopt;
}

std::optional<WorkspaceDivisionSession::Placement> WorkspaceDivisionSession::captured_placement(
    const KernelIdentity& kernel, cudaStream_t stream) {
  std::unique_lock lock(mutex_);
  if (given_up_ || !arena_) return std::nullopt;
  auto found = index_.find(kernel);
  if (found == index_.end()) return std::nullopt;
  Entry& e = entries_[found->second];
  Group& g = groups_[e.group];
  const auto* plan = plan_in_segment(e, g, nullptr);
  // Ordering across streams would record into a stream outside the capture: not done.
  if (!plan || (g.segment->used && g.segment->last_stream != stream)) return std::nullopt;
  arena_captured_ = true;
  g.segment->used = true;
  g.segment->last_stream = stream;
  return Placement{std::move(lock), plan, g.segment->data,
                   static_cast<std::size_t>(plan->workspace_bytes())};
}

}  // namespace ucudnn::shim
