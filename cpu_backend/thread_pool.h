#pragma once
// A fixed pool, one worker per physical core (the caller's thread is worker 0). GEMMs run
// single-threaded inside OpenBLAS and are parallelized by the callers through this pool, so
// OpenBLAS's threads and ours never compete for the cores.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ucudnn::cpu {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads = physical_cores());
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

  // Splits [0, count) into size() contiguous ranges and runs body(begin, end, thread) on
  // each, the caller taking range 0; returns when all are done. If bodies throw, it still
  // waits for every range, then rethrows the first exception. Calls from several threads
  // are serialized; a body must not call parallel_for on the same pool (it would deadlock).
  void parallel_for(std::size_t count,
                    const std::function<void(std::size_t, std::size_t, unsigned)>& body);

  static unsigned physical_cores();

 private:
  void worker_loop(unsigned index);

  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // one parallel_for at a time
  std::mutex mutex_;
  std::exception_ptr error_;
  std::condition_variable wake_, done_;
  const std::function<void(std::size_t, std::size_t, unsigned)>* body_ = nullptr;
  std::size_t count_ = 0;
  std::size_t generation_ = 0;
  unsigned pending_ = 0;
  bool stopping_ = false;
};

}  // namespace ucudnn::cpu
