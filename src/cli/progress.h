#pragma once
// Benchmarking progress on stderr: a bar with the estimated time left when stderr is a
// terminal, one plain line per step otherwise (logs, CI, mpirun). Steps carry a weight (their
// expected cost) so that the estimate does not assume small and large micro-batches take
// equally long. Thread-safe: the workers of several GPUs report to one bar.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

namespace ucudnn::cli {

class Progress {
 public:
  // `terminal`: draw a bar (usually isatty(fileno(out))).
  Progress(std::FILE* out, bool terminal, std::size_t steps, double total_weight,
           std::string prefix = "");
  ~Progress();  // ends the bar's line
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void step(const std::string& what, double weight);
  // A line of its own (a warning) on the same stream: on a terminal above the bar, which is
  // then drawn again below it.
  void say(const std::string& line);

 private:
  std::string eta(double done_weight) const;

  std::FILE* out_;
  bool terminal_;
  std::size_t steps_;
  double total_weight_;
  std::string prefix_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::mutex mutex_;
  std::size_t done_ = 0;
  double done_weight_ = 0;
  bool drawn_ = false;
  std::string bar_;  // as last drawn
};

// "45 s", "3 min 05 s", "1 h 02 min".
std::string format_duration(double seconds);

}  // namespace ucudnn::cli
