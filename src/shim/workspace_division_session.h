#pragma once
// WD under LD_PRELOAD, for one handle: the application never says which kernels make up its
// network, so the session learns them. Every kernel seen in Get/Find or run with the virtual
// algorithm joins the set; the first kernel run in a learning round is the anchor, and when
// it runs again an iteration has completed: the ILP then divides one arena (one cudaMalloc)
// among the kernels, weighting each by its runs in that iteration, and each kernel runs in
// its own segment from then on. Segments never overlap, so kernels of one handle may run
// concurrently on different streams. A kernel that appears later starts a new round; the
// next division frees the old arena first (cudaFree waits for the work using it).
//
// Until a kernel has a segment (while learning, or when nothing fits it), the caller runs it
// within the application's own workspace (WR). If the arena cannot be allocated or the ILP
// has no solution, the session gives up with one warning and frees its memory.
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

  // A kernel the application asked about (Get/Find).
  void note(const KernelIdentity& kernel);

  struct Placement {
    const cudnn::PlanExecutor* plan;
    void* workspace;
    std::size_t bytes;
  };
  // Counts the run and divides the workspace when an iteration has completed. A placement
  // when the kernel has a segment; nullopt: run it within the application's workspace.
  std::optional<Placement> place(const KernelIdentity& kernel, const PlannerContext& context);
  // While a CUDA graph is captured: the kernel's segment if it has one, changing nothing
  // (no counting, no division). The arena then may be referenced by a graph, so it is never
  // freed again: a later division keeps it, and so does the session's end.
  std::optional<Placement> captured_placement(const KernelIdentity& kernel);

  WorkspaceDivisionSession(const WorkspaceDivisionSession&) = delete;
  WorkspaceDivisionSession& operator=(const WorkspaceDivisionSession&) = delete;
  ~WorkspaceDivisionSession();

  // Divides now with the kernels seen so far (the options API's "optimize now").
  bool solve(const PlannerContext& context);

  // What Get/Find report for the kernel: its divided configuration, or before the division
  // the best configuration within the total (the most the division can give it).
  std::optional<Configuration> reported_configuration(const KernelIdentity& kernel,
                                                      const PlannerContext& context);

 private:
  struct Entry {
    int runs = 0;  // in the current learning round
    std::shared_ptr<cudnn::PlanExecutor> divided;
    std::uint64_t offset = 0;
    std::optional<Configuration> best_within_total;
  };
  Entry& entry(const KernelIdentity& kernel);
  void give_up(const std::string& why);
  // Takes the arena out of the session's hands, unfreed, when a graph may use it.
  void keep_if_captured();

  std::uint64_t total_;
  std::vector<KernelIdentity> order_;  // the set, in order of first sight
  std::unordered_map<KernelIdentity, Entry, KernelIdentityHash> entries_;
  std::optional<KernelIdentity> anchor_;
  bool learning_ = true;
  std::optional<cudnn::DeviceBuffer> arena_;
  bool arena_captured_ = false;  // a captured graph may use it: never freed
  bool given_up_ = false;
};

}  // namespace ucudnn::shim
