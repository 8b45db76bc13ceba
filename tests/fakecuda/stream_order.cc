#include "stream_order.h"

#include <algorithm>

namespace ucudnn::fakecuda {
namespace {

thread_local bool in_work = false;

}  // namespace

bool StreamOrder::running_work() {
  return in_work;
}

// The null stream, cudaStreamLegacy and cudaStreamPerThread are one queue here (as they share
// one clock): the per-thread stream synchronizes with the legacy one anyway.
cudaStream_t StreamOrder::key(cudaStream_t stream) {
  return stream == cudaStreamLegacy || stream == cudaStreamPerThread ? nullptr : stream;
}

bool StreamOrder::blocking(cudaStream_t key) const {
  return key != nullptr && !non_blocking_.contains(key);
}

void StreamOrder::set_non_blocking(cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  non_blocking_.insert(key(stream));
}

std::uint64_t StreamOrder::push(cudaStream_t key, Work work, std::vector<std::uint64_t> after,
                                ScratchRange scratch, bool* raced) {
  const std::uint64_t id = next_id_++;
  if (auto last = last_on_stream_.find(key); last != last_on_stream_.end())
    after.push_back(last->second);
  // The legacy stream waits for all blocking streams, and they for it.
  if (key == nullptr) {
    for (const auto& [stream, last] : last_on_stream_)
      if (blocking(stream)) after.push_back(last);
  } else if (blocking(key)) {
    if (auto legacy = last_on_stream_.find(nullptr); legacy != last_on_stream_.end())
      after.push_back(legacy->second);
  }
  if (raced && scratch.begin < scratch.end) {
    // What the new item is ordered after: its dependencies, theirs, and so on (one pass from
    // the newest item back, as in finish()).
    std::unordered_set<std::uint64_t> before(after.begin(), after.end());
    for (auto item = pending_.rbegin(); item != pending_.rend(); ++item)
      if (before.contains(item->id)) before.insert(item->after.begin(), item->after.end());
    for (const Item& item : pending_)
      if (item.scratch.begin < scratch.end && scratch.begin < item.scratch.end &&
          !before.contains(item.id))
        *raced = true;
  }
  last_on_stream_[key] = id;
  pending_.push_back(Item{id, key, std::move(work), std::move(after), scratch});
  // The oldest pending item depends only on older, finished ones: it can run.
  while (pending_.size() > kMaxPending) {
    run(pending_.front());
    pending_.pop_front();
  }
  return id;
}

void StreamOrder::run(Item& item) {
  if (!item.work) return;
  in_work = true;
  item.work();
  in_work = false;
}

template <typename IsTarget>
void StreamOrder::finish(IsTarget is_target) {
  // One pass from the newest item back: every dependency is older than its dependent.
  std::vector<bool> due(pending_.size(), false);
  std::unordered_set<std::uint64_t> needed;
  for (std::size_t i = pending_.size(); i-- > 0;) {
    const Item& item = pending_[i];
    if (!is_target(item) && !needed.contains(item.id)) continue;
    due[i] = true;
    needed.insert(item.after.begin(), item.after.end());
  }
  std::deque<Item> still_pending;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (due[i])
      run(pending_[i]);
    else
      still_pending.push_back(std::move(pending_[i]));
  }
  pending_ = std::move(still_pending);
}

bool StreamOrder::enqueue(cudaStream_t stream, Work work, ScratchRange scratch) {
  std::lock_guard lock(mutex_);
  bool raced = false;
  push(key(stream), std::move(work), {}, scratch, &raced);
  return !raced;
}

void StreamOrder::record(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  events_[event] = push(key(stream), {}, {});
}

void StreamOrder::wait(cudaStream_t stream, cudaEvent_t event) {
  std::lock_guard lock(mutex_);
  auto recorded = events_.find(event);
  if (recorded == events_.end()) return;  // never recorded: nothing to wait for, as CUDA
  push(key(stream), {}, {recorded->second});
}

bool StreamOrder::stream_pending(cudaStream_t stream) const {
  std::lock_guard lock(mutex_);
  return std::any_of(pending_.begin(), pending_.end(),
                     [k = key(stream)](const Item& item) { return item.stream == k; });
}

bool StreamOrder::event_pending(cudaEvent_t event) const {
  std::lock_guard lock(mutex_);
  auto recorded = events_.find(event);
  if (recorded == events_.end()) return false;
  return std::any_of(pending_.begin(), pending_.end(),
                     [id = recorded->second](const Item& item) { return item.id == id; });
}

void StreamOrder::finish_stream(cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  const cudaStream_t k = key(stream);
  // Waiting on the legacy stream waits for what it would run after: every blocking stream's
  // earlier work. A marker item carries those dependencies.
  if (k == nullptr) push(k, {}, {});
  finish([k](const Item& item) { return item.stream == k; });
}

void StreamOrder::finish_event(cudaEvent_t event) {
  std::lock_guard lock(mutex_);
  auto recorded = events_.find(event);
  if (recorded == events_.end()) return;
  finish([id = recorded->second](const Item& item) { return item.id == id; });
}

void StreamOrder::finish_all() {
  std::lock_guard lock(mutex_);
  finish([](const Item&) { return true; });
}

void StreamOrder::forget_stream(cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  last_on_stream_.erase(key(stream));
  non_blocking_.erase(key(stream));
}

void StreamOrder::forget_event(cudaEvent_t event) {
  std::lock_guard lock(mutex_);
  events_.erase(event);
}

}  // namespace ucudnn::fakecuda
