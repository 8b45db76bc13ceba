#pragma once
// WD under LD_PRELOAD, for one device: every handle on the device that asks for the same total
// (and batch-size policy) shares one session, so one arena serves the whole network however
// the framework spreads it over threads and handles (PyTorch: a handle per thread, backward on
// the autograd thread).
//
// Sharing (issue 36). Work on one stream runs in order, so kernels of one stream never run at
// once: they share one segment of the arena, each its fastest configuration within it, one
// after another. A division among them could only slow them, so a network on one stream (as
// PyTorch runs forward and backward) costs exactly WR within the total, in one buffer. Kernels
// of different streams are taken to be able to overlap: each group of streams (streams that
// share a kernel are one group) gets a segment of its own, and the ILP divides the total among
// the groups (core/workspace_sharing.h). A kernel of UcudnnHandle_t's layer ids runs where the
// application keeps one buffer per layer: a segment of its own, as the paper divides.
//
// Learning. The application never says which kernels make up its network, so the session
// watches the runs and the streams they come on. An iteration is found when the runs end in two
// equal copies of a sequence that contains every kernel run since learning began (A B B of a
// network A B B B C is not one). The division is made then, each kernel weighted by its runs
// in the iteration, in one arena (one cudaMalloc). After it the session follows the iteration
// a run at a time, which costs no allocation or synchronization; a run that departs from it
// starts learning again (segments stay in use meanwhile: a kernel that differs only in the
// batch size from a divided one runs WR within that one's segment), and the next iteration
// found is divided again only when its kernels, their relative runs or their sharing differ.
// Kernels not in it then age out.
//
// Stored divisions. A division is stored under the set of its kernels, their runs per
// iteration and which share a segment (core/division_key.h), as `ucudnn bench
// --total-workspace` stores one made offline. When learning finds an iteration, a stored
// division of it is used, after validation, instead of measuring and solving. Before that, at
// the first kernel the session sees, a stored division for this device, total and policy that
// lists the kernel is taken at once: the arena is allocated and each of its kernels runs in its
// segment from its first call, so that a job planned offline measures nothing, from its first
// iteration on.
//
// A kernel without a segment runs the best WR plan within what is left of the total beside
// the arena, in a scratch buffer: never in the zero bytes the application was told it needs.
// Segments and the scratch buffer remember the stream that last used them; a use on another
// stream first waits for that stream's work (an event, no host synchronization).
//
// Placements are handed out with the session's lock, held until the call has issued its
// work, so that no other handle's call re-divides (and frees the arena) meanwhile. If the
// arena cannot be allocated or the ILP has no solution, the session gives up with one warning
// and frees its memory; calls then run WR in the application's workspace.
//
// Files: workspace_division_session.cc (placing calls, memory), workspace_division_learning.cc
// (finding the iteration), workspace_division_layout.cc (dividing, stored divisions).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cudnn/device_memory.h"
#include "cudnn/plan_executor.h"
#include "shim/kernel_identity.h"
#include "shim/kernel_planner.h"
#include "shim/planned_kernels.h"

namespace ucudnn::shim {

class WorkspaceDivisionSession {
 public:
  // `account`: the device's record of what ucudnn held (for the line at exit), or null.
  explicit WorkspaceDivisionSession(std::uint64_t total_bytes, PlannedKernels* account = nullptr)
      : total_(total_bytes), account_(account) {}
  WorkspaceDivisionSession(const WorkspaceDivisionSession&) = delete;
  WorkspaceDivisionSession& operator=(const WorkspaceDivisionSession&) = delete;
  ~WorkspaceDivisionSession();

  std::uint64_t total_bytes() const { return total_; }
  bool given_up() const;

  // A kernel the application asked about (Get/Find): known, not run.
  void note(const KernelIdentity& kernel, const PlannerContext& context);

  // Where a call runs, with the session locked until it is destroyed.
  struct Placement {
    std::unique_lock<std::mutex> lock;
    const cudnn::PlanExecutor* plan;
    void* workspace;
    std::size_t bytes;
  };
  // Counts the run on the way to an iteration (dividing when one is found) and places the
  // kernel in its segment or the scratch buffer, ordered after the last use on another
  // stream. nullopt: run it within the application's workspace.
  std::optional<Placement> place(const KernelIdentity& kernel, const PlannerContext& context,
                                 cudaStream_t stream);
  // While a CUDA graph is captured: a segment the kernel already has a plan in, if its last
  // use was on this stream, changing nothing else. The arena then may be referenced by a
  // graph, so it is never freed again: a later division keeps it, and so does the session's end.
  std::optional<Placement> captured_placement(const KernelIdentity& kernel, cudaStream_t stream);

  // Divides now with every kernel known, weighted by its runs so far (the options API's
  // "optimize now").
  bool solve(const PlannerContext& context);

  // What Get/Find report for the kernel: its divided configuration, or before the division
  // the best configuration within the total (the most the division can give it). A kernel
  // that found no plan within the total is planned again only with `retry_failed` (a Find), as
  // WR's limits that found nothing: frameworks ask Get before every call.
  std::optional<Configuration> reported_configuration(const KernelIdentity& kernel,
                                                      const PlannerContext& context,
                                                      bool retry_failed);

 private:
  // A stretch of device memory that calls on several streams may share.
  struct Region {
    void* data = nullptr;
    std::uint64_t bytes = 0;
    cudaStream_t last_stream = nullptr;
    bool used = false;
    std::shared_ptr<cudnn::CudaEvent> event;  // made at the first use on a second stream
  };
  struct Entry {
    KernelIdentity kernel;
    KernelIdentity twins;  // the kernel at batch size 1: the key of its batch-size variants
    int segment = -1;      // in segments_; -1: none yet
    std::shared_ptr<cudnn::PlanExecutor> in_segment;  // the divided plan, or WR within it
    bool no_plan_in_segment = false;
    bool divided = false;  // in_segment is the division's (or the adopted stored one's) choice
    std::shared_ptr<cudnn::PlanExecutor> waiting;  // WR within what the arena leaves
    std::uint64_t waiting_limit = 0;
    bool no_waiting_plan = false;
    std::optional<Configuration> best_within_total;
    bool no_plan_within_total = false;  // planning it within the total failed
    bool looked_up_stored = false;      // in the adopted stored division
  };
  // A segment of the adopted stored division whose kernel has not come yet.
  struct StoredSegment {
    int segment = 0;
    Configuration configuration;
  };
  // A kernel of an iteration to divide.
  struct Member {
    int kernel = 0;
    int runs = 0;
    std::vector<cudaStream_t> streams;  // none: only asked about
  };

  int index_of(const KernelIdentity& kernel);
  void observe(int kernel, cudaStream_t stream, const PlannerContext& context);
  std::optional<std::size_t> repeated_iteration() const;
  std::vector<Member> members_of(const std::vector<int>& runs,
                                 const std::vector<cudaStream_t>& streams) const;
  bool divide(const std::vector<Member>& members, const PlannerContext& context);
  void adopt_stored_division(const KernelIdentity& kernel, const PlannerContext& context);
  void take_stored_segment(int kernel, const PlannerContext& context);
  void note_stored(const Entry& e, const PlannerContext& context);
  std::optional<std::vector<Configuration>> stored_division(
      const std::string& subject, const std::vector<int>& kernels,
      const std::vector<std::size_t>& segment_of, const PlannerContext& context);
  bool allocate_arena(std::uint64_t bytes, const PlannerContext& context);
  bool install(const std::vector<int>& kernels, const std::vector<std::size_t>& segment_of,
               const std::vector<Configuration>& chosen, const PlannerContext& context);
  void explain(const std::vector<int>& kernels, const std::vector<std::size_t>& segment_of,
               const std::vector<std::string>& why) const;
  const cudnn::PlanExecutor* plan_in_segment(Entry& e, const PlannerContext* context);
  const cudnn::PlanExecutor* plan_waiting(Entry& e, const PlannerContext& context);
  // Tells account_ of the kernel's plan, made to run within `bytes`, beside the best undivided
  // candidate within as much (for the line at exit; only at the info level).
  void account_plan(const Entry& e, const cudnn::PlanExecutor& plan, std::uint64_t bytes,
                    const PlannerContext& context) const;
  bool order_after_last_use(Region& region, cudaStream_t stream, const cudnn::CudaRuntime& runtime);
  void release_memory();
  void give_up(const std::string& why);
  void keep_if_captured();

  mutable std::mutex mutex_;
  std::uint64_t total_;
  std::vector<Entry> entries_;  // every kernel known, in order of first sight
  std::unordered_map<KernelIdentity, int, KernelIdentityHash> index_;
  // Per batch-size twins (Entry::twins), the segment of a divided kernel among them.
  std::unordered_map<KernelIdentity, int, KernelIdentityHash> twin_segment_;
  std::vector<Region> segments_;  // of the arena in place

  // Learning: the runs since it began, the streams they came on, and which kernels they hold.
  std::vector<int> history_;
  std::vector<cudaStream_t> history_streams_;
  std::unordered_map<int, int> history_runs_;
  // Following: the iteration found (and its streams), where in it the next run should be, and
  // the name of the iteration the division in place was made for (its kernels, relative runs
  // and sharing).
  std::vector<int> iteration_;
  std::vector<cudaStream_t> iteration_streams_;
  std::size_t position_ = 0;
  bool following_ = false;
  std::string divided_iteration_;
  std::string division_subject_;  // the store's name of the division in place

  // The stored division taken before learning, by kernel hash; looked for once.
  std::unordered_map<std::string, StoredSegment> stored_segments_;
  bool looked_for_stored_ = false;
  bool stored_division_invalid_ = false;

  std::optional<cudnn::DeviceBuffer> arena_;
  std::optional<cudnn::DeviceBuffer> scratch_;
  PlannedKernels* account_ = nullptr;
  // Tells account_ what the arena and the scratch buffer hold now.
  void account_held() const;
  Region scratch_region_;
  std::uint64_t scratch_refused_ = UINT64_MAX;  // the smallest scratch size the device refused
  bool arena_captured_ = false;                 // a captured graph may use it: never freed
  bool given_up_ = false;
};

}  // namespace ucudnn::shim
