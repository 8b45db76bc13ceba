#include "virtual_clock.h"

#include <algorithm>

// The handles the double gives out. Their addresses are the identities; they hold nothing.
struct CUstream_st {
  char unused;
};
struct CUevent_st {
  char unused;
};

namespace ucudnn::fakecuda {

namespace {
thread_local double host_ms = 0;  // the calling thread's virtual clock (VirtualClocks' timeline)
}  // namespace

template <typename Self>
auto VirtualClocks::clock_of(Self& self, cudaStream_t stream) -> decltype(&self.default_clock_ms_) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return &self.default_clock_ms_;
  auto it = self.streams_.find(stream);
  return it == self.streams_.end() ? nullptr : &it->second;
}

cudaStream_t VirtualClocks::create_stream() {
  cudaStream_t stream = new CUstream_st{};
  std::lock_guard lock(mutex_);
  streams_.emplace(stream, 0.0);
  return stream;
}

cudaError_t VirtualClocks::destroy_stream(cudaStream_t stream) {
  {
    std::lock_guard lock(mutex_);
    const auto it = streams_.find(stream);
    if (it == streams_.end()) return cudaErrorInvalidResourceHandle;
    held_.erase(&it->second);
    streams_.erase(it);
  }
  delete stream;
  return cudaSuccess;
}

void VirtualClocks::wait_for_host(double* clock) {
  if (!timeline_) return;
  const auto held = held_.find(clock);
  if (held == held_.end() || held->second == 0) *clock = std::max(*clock, host_ms);
}

cudaError_t VirtualClocks::advance(cudaStream_t stream, double ms) {
  std::lock_guard lock(mutex_);
  double* clock = clock_of(*this, stream);
  if (!clock) return cudaErrorInvalidResourceHandle;
  wait_for_host(clock);
  *clock += ms;
  return cudaSuccess;
}

cudaError_t VirtualClocks::now(cudaStream_t stream, double* ms) const {
  std::lock_guard lock(mutex_);
  const double* clock = clock_of(*this, stream);
  if (!clock) return cudaErrorInvalidResourceHandle;
  *ms = *clock;
  return cudaSuccess;
}

cudaError_t VirtualClocks::wait(cudaStream_t stream, cudaEvent_t event) {
  std::lock_guard lock(mutex_);
  double* clock = clock_of(*this, stream);
  auto it = events_.find(event);
  if (!clock || it == events_.end()) return cudaErrorInvalidResourceHandle;
  if (it->second.recorded_ms) *clock = std::max(*clock, *it->second.recorded_ms);
  return cudaSuccess;
}

cudaEvent_t VirtualClocks::create_event(bool timing) {
  cudaEvent_t event = new CUevent_st{};
  std::lock_guard lock(mutex_);
  events_.emplace(event, Event{timing, std::nullopt});
  return event;
}

cudaError_t VirtualClocks::destroy_event(cudaEvent_t event) {
  {
    std::lock_guard lock(mutex_);
    if (events_.erase(event) == 0) return cudaErrorInvalidResourceHandle;
  }
  delete event;
  return cudaSuccess;
}

cudaError_t VirtualClocks::record(cudaEvent_t event, cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  double* clock = clock_of(*this, stream);
  auto it = events_.find(event);
  if (!clock || it == events_.end()) return cudaErrorInvalidResourceHandle;
  wait_for_host(clock);
  it->second.recorded_ms = *clock;
  return cudaSuccess;
}

bool VirtualClocks::is_event(cudaEvent_t event) const {
  std::lock_guard lock(mutex_);
  return events_.contains(event);
}

cudaError_t VirtualClocks::elapsed(float* ms, cudaEvent_t start, cudaEvent_t end) const {
  std::lock_guard lock(mutex_);
  auto first = events_.find(start), last = events_.find(end);
  if (first == events_.end() || last == events_.end()) return cudaErrorInvalidResourceHandle;
  // As the real runtime: both events must be recorded and must keep timing.
  if (!first->second.timing || !last->second.timing || !first->second.recorded_ms ||
      !last->second.recorded_ms)
    return cudaErrorInvalidResourceHandle;
  *ms = static_cast<float>(*last->second.recorded_ms - *first->second.recorded_ms);
  return cudaSuccess;
}

void VirtualClocks::host_busy(double ms) {
  std::lock_guard lock(mutex_);
  timeline_ = true;
  host_ms += ms;
}

void VirtualClocks::host_waits_for_stream(cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  if (const double* clock = clock_of(*this, stream); clock && timeline_)
    host_ms = std::max(host_ms, *clock);
}

void VirtualClocks::host_waits_for_event(cudaEvent_t event) {
  std::lock_guard lock(mutex_);
  const auto it = events_.find(event);
  if (it != events_.end() && it->second.recorded_ms && timeline_)
    host_ms = std::max(host_ms, *it->second.recorded_ms);
}

void VirtualClocks::host_waits_for_all() {
  std::lock_guard lock(mutex_);
  if (!timeline_) return;
  host_ms = std::max(host_ms, default_clock_ms_);
  for (const auto& [stream, clock] : streams_) host_ms = std::max(host_ms, clock);
}

void VirtualClocks::hold(cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  double* clock = clock_of(*this, stream);
  if (!clock) return;
  wait_for_host(clock);  // the gate stands from when the host issued it
  ++held_[clock];
}

void VirtualClocks::release(cudaStream_t stream) {
  std::lock_guard lock(mutex_);
  const double* clock = clock_of(*this, stream);
  const auto held = held_.find(clock);
  if (held != held_.end() && held->second > 0 && --held->second == 0) held_.erase(held);
}

}  // namespace ucudnn::fakecuda
