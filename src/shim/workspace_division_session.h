#pragma once
// WD under LD_PRELOAD, for one handle: the application never says which kernels make up its
// network, so the session learns them. Every kernel seen in Get/Find or run with the
// virtual algorithm joins the set; the first kernel run is the anchor, and when it runs
// again an iteration has completed and the set is stable: the ILP then divides one arena
// (one cudaMalloc of the total size) among the kernels, weighting each by how often it ran
// in that iteration. A kernel that appears later starts a new learning round. While
// learning, each kernel runs its WR plan under the total limit at the arena's start (calls
// of one handle are ordered on its stream, so they never overlap). If the arena cannot be
// allocated or the ILP has no solution, the session gives up with one warning and the
// caller plans WR on the application's own workspace.
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cudnn/device_memory.h"
#include "cudnn/plan_executor.h"
#include "shim/kernel_identity.h"
#include "shim/kernel_planner.h"

namespace ucudnn::shim {

class WorkspaceDivisionSession {
 public:
  explicit WorkspaceDivisionSession(std::uint64_t total_bytes) : total_(total_bytes) {}

  std::uint64_t total_bytes() const { return total_; }
  bool given_up() const { return given_up_; }
  bool planned() const { return planned_; }

  // A kernel the application asked about (Get/Find).
  void note(const KernelIdentity& kernel);

  struct Placement {
    const cudnn::PlanExecutor* plan;
    void* workspace;
    std::size_t bytes;
  };
  // Where to run a virtual-algorithm call of `kernel` now; nullopt once the session gave up.
  std::optional<Placement> place(const KernelIdentity& kernel, const PlannerContext& context);

  // Solves now with the kernels seen so far (the options API's "optimize now").
  bool solve(const PlannerContext& context);

  // The planned time of `kernel`'s configuration, for Get/Find results (learning or planned).
  std::optional<double> planned_time_ms(const KernelIdentity& kernel,
                                        const PlannerContext& context);

 private:
  struct Entry {
    int runs = 0;                                   // in the current learning round
    std::shared_ptr<cudnn::PlanExecutor> learning;  // WR under the total limit
    std::shared_ptr<cudnn::PlanExecutor> divided;   // the ILP's choice
    std::uint64_t offset = 0;
  };
  Entry& entry(const KernelIdentity& kernel);
  const cudnn::PlanExecutor* learning_plan(const KernelIdentity& kernel, Entry& entry,
                                           const PlannerContext& context);
  void give_up(const std::string& why);

  std::uint64_t total_;
  std::vector<KernelIdentity> order_;  // the set, in order of first sight
  std::unordered_map<KernelIdentity, Entry, KernelIdentityHash> entries_;
  std::optional<KernelIdentity> anchor_;
  std::optional<cudnn::DeviceBuffer> arena_;
  bool planned_ = false, given_up_ = false;
};

}  // namespace ucudnn::shim
