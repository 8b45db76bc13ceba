#pragma once
// What ucudnn planned on one device, for the line it logs at exit (UCUDNN_LOG_LEVEL=info): the
// kernels planned under WR and their planned time per iteration beside the best undivided
// candidate within the same limit (cudnn-frontend's capped autotuning), and the most workspace
// a planned call used; under WD, the most workspace ucudnn held at once (the arena and a
// waiting kernel's buffer).
//
// Per iteration: the shim does not see a framework's iterations, so it counts each plan's runs
// and takes the least-run planned kernel as run once per iteration (a network's first layer:
// its Forward runs once a step). Each kernel then weighs its runs over that kernel's: a ResNet
// block repeated three times counts three times, as the step runs it. Each kernel counts at its
// last plan, whatever the handles. Where no plan has run yet, each kernel counts once.
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ucudnn::shim {

class PlannedKernels {
 public:
  using RunCount = std::shared_ptr<const std::atomic<std::uint64_t>>;
  // `undivided_ms`: nullopt where no undivided candidate fits the limit. `runs`: the plan's
  // count of whole runs (PlanExecutor::runs()); null counts as never run.
  void record(const std::string& kernel, double plan_ms, std::optional<double> undivided_ms,
              std::uint64_t workspace_bytes, RunCount runs);

  struct Summary {
    std::size_t kernels = 0, kernels_run = 0;
    // Per iteration, over the kernels with both; `iterations` 0: no plan ran, each kernel once.
    double plan_ms = 0, undivided_ms = 0;
    std::uint64_t iterations = 0;
    std::size_t without_undivided = 0;
    // Of the plans that ran (of every plan where none ran).
    std::uint64_t largest_workspace = 0;
    std::uint64_t peak_held = 0, division_total = 0;  // WD's
  };
  // Under WD: ucudnn now holds `bytes` of workspace on the device, of a total of `total`.
  void held(std::uint64_t bytes, std::uint64_t total);
  Summary summary() const;
  // "GPU 0: 53 kernels planned; ...", or empty when nothing was planned or held.
  static std::string line(int device, const Summary& summary);

 private:
  struct Entry {
    double plan_ms = 0;
    std::optional<double> undivided_ms;
    std::uint64_t workspace_bytes = 0;
    RunCount runs;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> kernels_;
  std::uint64_t peak_held_ = 0, division_total_ = 0;
};

}  // namespace ucudnn::shim
