#pragma once
// What ucudnn planned on one device, for the line it logs at exit (UCUDNN_LOG_LEVEL=info): the
// kernels planned under WR, their planned time beside the best undivided candidate within the
// same limit (cudnn-frontend's capped autotuning), and the most workspace any plan asks for;
// under WD, the most workspace ucudnn held at once (the arena and a waiting kernel's buffer).
// Each kernel counts once, at its last plan, whatever the handles or calls: the sums are one
// run of every planned kernel, an iteration where each runs once.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace ucudnn::shim {

class PlannedKernels {
 public:
  // `undivided_ms`: nullopt where no undivided candidate fits the limit.
  void record(const std::string& kernel, double plan_ms, std::optional<double> undivided_ms,
              std::uint64_t workspace_bytes);

  struct Summary {
    std::size_t kernels = 0;
    double plan_ms = 0, undivided_ms = 0;  // over the kernels with both
    std::size_t without_undivided = 0;
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
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> kernels_;
  std::uint64_t peak_held_ = 0, division_total_ = 0;
};

}  // namespace ucudnn::shim
