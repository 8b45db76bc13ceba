#pragma once
// What ucudnn planned on one device, for the line it logs at exit (UCUDNN_LOG_LEVEL=info): the
// kernels planned; over those whose calls ran ucudnn's plans, the planned time per iteration
// beside the best undivided candidate within the same workspace (under WR the limit:
// cudnn-frontend's capped autotuning; under WD the kernel's segment of the division, or what
// the division leaves beside it), and the most workspace a planned call used; under WD also the
// most workspace ucudnn held at once (the arena and a waiting kernel's buffer).
//
// Per iteration: the shim does not see a framework's iterations, so each plan counts the calls
// it served, and the least-run kernel is taken as run once an iteration (a network's first
// layer: its Forward runs once a step). Each kernel then weighs its runs over that count: a
// ResNet block repeated three times counts three times, as the step runs it. Kernels run far
// less than the rest (under an eighth of the median: an epoch's last, smaller batch is a kernel
// of its own) do not set that count; their few runs still weigh. A kernel's runs are those of
// every plan made for it (each handle has its own; a new limit makes another), its time that of
// its last plan. Where no plan has served a call, each kernel counts once and the line says so.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cudnn/plan_executor.h"

namespace ucudnn::shim {

class PlannedKernels {
 public:
  using RunCount = std::shared_ptr<const cudnn::PlanExecutor::RunCount>;
  // `undivided_ms`: nullopt where no undivided candidate fits the limit. `runs`: the plan's
  // count of the calls it served (PlanExecutor::runs()); null counts as never run.
  // `split_with_host`: a CPU/GPU hybrid plan (UCUDNN_HYBRID), `plan_ms` its split's time.
  void record(const std::string& kernel, double plan_ms, std::optional<double> undivided_ms,
              std::uint64_t workspace_bytes, RunCount runs, bool split_with_host = false);

  struct Summary {
    std::size_t kernels = 0, kernels_run = 0;
    std::size_t split_with_host = 0;  // kernels whose last plan is a CPU/GPU split
    // Per iteration, over the kernels run with a baseline; `iterations` 0: none ran, each once.
    double plan_ms = 0, undivided_ms = 0;
    std::uint64_t iterations = 0;
    std::size_t without_undivided = 0;  // counted kernels with no undivided candidate
    // Of the plans that served calls (of every plan where none did).
    std::uint64_t largest_workspace = 0;
    std::uint64_t peak_held = 0, division_total = 0;  // WD's
    // Of `kernels`, those measured in this process; the others were planned from the
    // database's measurements (a warm run says so: its plans cost no warm-up).
    std::size_t measured_in_this_run = 0;
  };
  // Under WD: ucudnn now holds `bytes` of workspace on the device, of a total of `total`.
  void held(std::uint64_t bytes, std::uint64_t total);
  // `measured_in_this_run`: the kernels (their KernelKey text) this process measured.
  Summary summary(const std::set<std::string>& measured_in_this_run) const;
  // "GPU 0: 53 kernels planned; ...", or empty when nothing was planned or held.
  static std::string line(int device, const Summary& summary);

 private:
  struct Executor {
    RunCount runs;
    std::uint64_t workspace_bytes = 0;
  };
  struct Entry {
    double plan_ms = 0;
    std::optional<double> undivided_ms;
    std::uint64_t workspace_bytes = 0;    // of its last plan
    bool split_with_host = false;         // its last plan
    std::vector<Executor> executors;      // of its plans whose executors live
    std::uint64_t retired_runs = 0;       // of those whose executors are gone
    std::uint64_t retired_workspace = 0;  // the largest of those that ran
    std::uint64_t runs() const;
    std::uint64_t workspace_used() const;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> kernels_;
  std::uint64_t peak_held_ = 0, division_total_ = 0;
};

}  // namespace ucudnn::shim
