#include "thread_pool.h"

#include <fstream>
#include <set>
#include <string>
#include <utility>

namespace ucudnn::cpu {

unsigned ThreadPool::physical_cores() {
  // Distinct (physical id, core id) pairs; SMT siblings share one. Falls back to the
  // hardware thread count where /proc/cpuinfo says nothing.
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;
  std::string line, physical = "0";
  while (std::getline(cpuinfo, line)) {
    auto value = [&] { return line.substr(line.find(':') + 1); };
    if (line.rfind("physical id", 0) == 0) physical = value();
    if (line.rfind("core id", 0) == 0) cores.emplace(physical, value());
  }
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  return cores.empty() ? hardware : std::min(hardware, static_cast<unsigned>(cores.size()));
}

ThreadPool::ThreadPool(unsigned threads) {
  for (unsigned i = 1; i < std::max(1u, threads); ++i)
    workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

namespace {
std::pair<std::size_t, std::size_t> range_of(std::size_t count, unsigned parts, unsigned index) {
  const std::size_t base = count / parts, extra = count % parts;
  const std::size_t begin = index * base + std::min<std::size_t>(index, extra);
  return {begin, begin + base + (index < extra ? 1 : 0)};
}
}  // namespace

void ThreadPool::parallel_for(std::size_t count,
                              const std::function<void(std::size_t, std::size_t, unsigned)>& body) {
  if (count == 0) return;
  if (workers_.empty() || count == 1) {
    body(0, count, 0);
    return;
  }
  std::lock_guard call(call_mutex_);
  {
    std::lock_guard lock(mutex_);
    body_ = &body;
    count_ = count;
    pending_ = static_cast<unsigned>(workers_.size());
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  std::exception_ptr own_error;
  try {
    auto [begin, end] = range_of(count, size(), 0);
    if (begin < end) body(begin, end, 0);
  } catch (...) {
    own_error = std::current_exception();
  }
  // Always wait: the workers use `body`, which lives in the caller's frame.
  std::unique_lock lock(mutex_);
  done_.wait(lock, [this] { return pending_ == 0; });
  body_ = nullptr;
  if (own_error) std::rethrow_exception(own_error);
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void ThreadPool::worker_loop(unsigned index) {
  std::size_t seen = 0;
  for (;;) {
    const std::function<void(std::size_t, std::size_t, unsigned)>* body;
    std::size_t count;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      body = body_;
      count = count_;
    }
    std::exception_ptr failure;
    try {
      auto [begin, end] = range_of(count, size(), index);
      if (begin < end) (*body)(begin, end, index);
    } catch (...) {
      failure = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      if (failure && !error_) error_ = failure;
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

}  // namespace ucudnn::cpu
