// WD under the shim, learning (workspace_division_session.h): finding the repeated
// iteration and its streams from the calls, and solving the division once it is known.
#include <algorithm>
#include <unordered_set>

#include "shim/workspace_division_session.h"

namespace ucudnn::shim {

namespace {

// Learning keeps at most this many runs: a kernel run once long ago (a warm-up) would
// otherwise keep every later iteration from counting as one.
constexpr std::size_t kMaxHistory = 1 << 14;

}  // namespace

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

void WorkspaceDivisionSession::observe(int kernel, cudaStream_t stream,
                                       const PlannerContext& context) {
  if (following_) {
    if (iteration_[position_] == kernel) {
      position_ = (position_ + 1) % iteration_.size();
      return;
    }
    // The application changed what it runs: learn again, from the start of this iteration, so
    // that its first kernels count as run since learning began (a model that stops running
    // A's B in A B B B would otherwise be found to be B B).
    following_ = false;
    const auto ran = static_cast<std::ptrdiff_t>(position_);
    history_.assign(iteration_.begin(), iteration_.begin() + ran);
    history_streams_.assign(iteration_streams_.begin(), iteration_streams_.begin() + ran);
    history_runs_.clear();
    for (int k : history_) ++history_runs_[k];
  }
  if (history_.size() == kMaxHistory) {
    history_.erase(history_.begin(), history_.begin() + kMaxHistory / 2);
    history_streams_.erase(history_streams_.begin(), history_streams_.begin() + kMaxHistory / 2);
    history_runs_.clear();
    for (int k : history_) ++history_runs_[k];
  }
  history_.push_back(kernel);
  history_streams_.push_back(stream);
  ++history_runs_[kernel];
  const auto length = repeated_iteration();
  if (!length) return;
  const auto from = static_cast<std::ptrdiff_t>(history_.size() - *length);
  iteration_.assign(history_.begin() + from, history_.end());
  iteration_streams_.assign(history_streams_.begin() + from, history_streams_.end());
  position_ = 0;
  following_ = true;
  history_.clear();
  history_streams_.clear();
  history_runs_.clear();
  divide(members_of(iteration_, iteration_streams_), context);
}

// The kernels of `runs` (one entry per run, with the stream it came on), in order of first
// sight, with their runs and streams.
std::vector<WorkspaceDivisionSession::Member> WorkspaceDivisionSession::members_of(
    const std::vector<int>& runs, const std::vector<cudaStream_t>& streams) const {
  std::vector<Member> members(entries_.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    Member& m = members[static_cast<std::size_t>(runs[i])];
    ++m.runs;
    if (std::find(m.streams.begin(), m.streams.end(), streams[i]) == m.streams.end())
      m.streams.push_back(streams[i]);
  }
  std::vector<Member> run;
  for (std::size_t k = 0; k < members.size(); ++k)
    if (members[k].runs > 0) {
      members[k].kernel = static_cast<int>(k);
      run.push_back(std::move(members[k]));
    }
  return run;
}

bool WorkspaceDivisionSession::solve(const PlannerContext& context) {
  std::lock_guard lock(mutex_);
  if (given_up_) return false;
  // Every kernel known, weighted by its runs so far (at least one), on the streams seen.
  auto members = following_ ? members_of(iteration_, iteration_streams_)
                            : members_of(history_, history_streams_);
  std::vector<Member> all(entries_.size());
  for (int k = 0; k < static_cast<int>(entries_.size()); ++k) all[k] = {k, 1, {}};
  for (auto& m : members) all[static_cast<std::size_t>(m.kernel)] = std::move(m);
  return divide(all, context);
}

}  // namespace ucudnn::shim
