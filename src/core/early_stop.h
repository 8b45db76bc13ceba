#pragma once
// When a benchmarker stops measuring a candidate early, for every backend: measuring costs
// mostly the running of slow candidates (on an H200, ResNet-50's bf16 configurations over 3x the
// fastest of their shape took 94% of the GPU time of measuring). A candidate stops at its
// warm-up run (timed) where that is over `hopeless_factor` times the fastest candidate measured
// at the same kernel and micro-batch (all within the measuring's limit) and `hopeless_margin_ms`
// more (no first run's loading explains that; on an H200, cuDNN's eng0 at 7 of bf16 ResNet-50's
// BackwardFilter kernels, 32-135 ms a run against 0.03-0.06 ms but needing no workspace, took
// every run until this held beside any faster candidate): its warm-up run is its measurement
// where the fastest needing no more workspace is that far ahead too, else one timed run more (a
// tighter limit may choose it). Else it stops at its first timed run where that is over
// `slow_factor` times the fastest needing no more workspace (so that the one stopped is
// dominated at every limit). The runs taken are its measurement. slow_factor = 0: every
// candidate takes every run.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ucudnn {

struct EarlyStopRule {
  double slow_factor = 3;
  double hopeless_factor = 10;
  double hopeless_margin_ms = 20;
};

// Thread-compatible: one benchmarker's measurements.
class EarlyStop {
 public:
  explicit EarlyStop(EarlyStopRule rule = {}) : rule_(rule) {}

  // The fastest measured at `shape` (a kernel's text and a micro-batch) among candidates that
  // need at most `bytes` (the candidate's own workspace for what dominates it, any for the
  // hopeless rule); nullopt where none did, or the rule never stops: the candidate then takes
  // every run.
  std::optional<double> bound(const std::pair<std::string, std::int64_t>& shape,
                              std::uint64_t bytes) const;
  // Whether a candidate stops at its warm-up run of `ms`, or at its first timed run of `ms`.
  bool hopeless(double ms, double bound) const;
  bool slow(double ms, double bound) const;
  // A candidate measured at `shape`: `ms` for `bytes` of workspace.
  void measured(const std::pair<std::string, std::int64_t>& shape, std::uint64_t bytes, double ms);

 private:
  EarlyStopRule rule_;
  std::map<std::pair<std::string, std::int64_t>, std::vector<std::pair<std::uint64_t, double>>>
      measured_;
};

}  // namespace ucudnn
